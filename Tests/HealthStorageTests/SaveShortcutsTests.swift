import Foundation
import HealthModel
@testable import HealthStorage
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
}
