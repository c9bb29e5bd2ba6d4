import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// A connection's `SaveShortcuts` only ever hold ids of committed rows.
final class SaveShortcutsTests: StoreTestCase {
    /// A batch undone after interning a new source, revision, device and type leaves the shortcuts as
    /// they were, so the connection's next batch interns them anew instead of naming rows that are gone.
    func testAnUndoneBatchLeavesNoShortcutToItsRows() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let shortcuts = SaveShortcuts()
            let device = Device(name: "Ring", manufacturer: "Example", model: "R1")
            func batch(_ objects: [Sample]) -> SaveBatch {
                let plain = f.batch(objects, device: device)
                return SaveBatch(owner: plain.owner, revision: plain.revision, defaultDevice: plain.defaultDevice, objects: objects,
                                 shortcuts: shortcuts)
            }
            let othersSample = StoreFixture.heartRate(s(1))
            try await f.save([othersSample], source: StoreFixture.scale)
            do {
                _ = try await f.store.save(batch([StoreFixture.sleep(s(2), s(3), value: 0), StoreFixture.heartRate(s(2), uuid: othersSample.uuid)]))
                XCTFail("another source's UUID must be refused")
            } catch let error as HealthError {
                XCTAssertEqual(error.objectIndex, 1)
            }
            try await expect(await f.store.save(batch([StoreFixture.sleep(s(4), s(5), value: 0)])), [.stored])
            try await expect(await f.store.save(batch([StoreFixture.sleep(s(6), s(7), value: 0)])), [.stored])
            let stored = try await f.query([StoreFixture.sleep])
            XCTAssertEqual(stored.map(\.device), [device, device])
            XCTAssertEqual(stored.map { $0.sourceRevision?.source }, [StoreFixture.watch, StoreFixture.watch])
            await f.store.close()
        }
    }
    /// A batch's saver remembers the types and devices it resolved (`SaverMemo`): in batches that
    /// interleave types and devices sample by sample, on one connection, each sample is stored with
    /// its own type and device (the batch's default one when it names none), and each type's longest
    /// duration and span reach the bookkeeping and the change feed.
    func testInterleavedTypesAndDevicesKeepTheirOwn() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let shortcuts = SaveShortcuts()
            let devices = (0..<3).map { Device(name: "Watch \($0)", manufacturer: "Example", model: "W\($0)") }
            let fallback = Device(name: "Phone", manufacturer: "Example", model: "P1")
            let events = Mutex<[ChangeEvent]>([])
            let token = f.store.subscribe { event in
                if case .data(let change) = event { events.withLock { $0.append(change) } }
            }
            var expected: [UUID: (type: String, device: Device)] = [:]
            for round in 0..<2 {
                let objects = (0..<40).map { i -> Sample in
                    let start = s(Int64(round * 100 + i + 1)), device = i % 4 == 3 ? nil : devices[(i / 2 + round) % 3]
                    let sample = i % 2 == 0
                        ? Sample(type: StoreFixture.heartRate, start: start, end: start, device: device, body: .quantity(Quantity(60, "count/min"), count: 1))
                        : Sample(type: StoreFixture.sleep, start: start, end: start + s(Int64(i)), device: device, body: .category(0))
                    expected[sample.uuid] = (sample.type, device ?? fallback)
                    return sample
                }
                let plain = f.batch(objects, device: fallback)
                let outcomes = try await f.store.save(SaveBatch(owner: plain.owner, revision: plain.revision, defaultDevice: fallback,
                                                                objects: objects, shortcuts: shortcuts))
                XCTAssertEqual(outcomes, Array(repeating: .stored, count: 40))
            }
            let stored = try await f.query([StoreFixture.heartRate, StoreFixture.sleep])
            XCTAssertEqual(stored.count, 80)
            for sample in stored {
                XCTAssertEqual(sample.type, expected[sample.uuid]?.type)
                XCTAssertEqual(sample.device, expected[sample.uuid]?.device)
            }
            let overlapping = try await f.query([StoreFixture.sleep], .dateRange(DateRange(start: s(79), end: s(80))))
            f.store.unsubscribe(token)
            await f.store.close()
            // A query reaching back by the longest stored sleep (39 s) finds the one starting before its range.
            XCTAssertEqual(overlapping.map(\.start), [s(40)])
            let seen = events.withLock { $0 }
            XCTAssertEqual(seen.map(\.spans), [
                [StoreFixture.heartRate: TimeSpan(start: s(1), end: s(39)), StoreFixture.sleep: TimeSpan(start: s(2), end: s(40 + 39))],
                [StoreFixture.heartRate: TimeSpan(start: s(101), end: s(139)), StoreFixture.sleep: TimeSpan(start: s(102), end: s(140 + 39))],
            ])
        }
    }
}
