import AppleHealthImport
import Foundation
import HealthModel
import Synchronization
import XCTest

final class BatchSaverTests: XCTestCase {
    /// A store holding some UUIDs under another source: like the server, it refuses a whole save at
    /// the first such object, naming it, and otherwise stores the save atomically.
    private final class Store: ImportDestination {
        let elsewhere: Set<UUID>
        let saves = Mutex(0)
        let objectsSent = Mutex(0)
        let stored = Mutex<[UUID]>([])

        init(elsewhere: Set<UUID>) { self.elsewhere = elsewhere }

        func save(_ samples: [Sample]) async throws -> [SaveOutcome] {
            saves.withLock { $0 += 1 }
            objectsSent.withLock { $0 += samples.count }
            if let index = samples.firstIndex(where: { elsewhere.contains($0.uuid) }) {
                throw HealthError.invalid("UUID \(samples[index].uuid) is already used by an object saved by another source",
                                          field: "uuid").at(index: index)
            }
            stored.withLock { $0.append(contentsOf: samples.map(\.uuid)) }
            return samples.map { _ in .stored }
        }

        func characteristics() async throws -> Characteristics { Characteristics() }
        func writeCharacteristics(_ update: Characteristics) async throws {}
        func isStored(_ uuid: UUID, type: String) async throws -> Bool { false }
        func series(_ step: SeriesStep) async throws -> Sample? { nil }
    }

    private let items: [BatchSaver.Item] = (0..<1_000).map { line in
        (line, Sample(type: "HKQuantityTypeIdentifierHeartRate", start: Int64(line) * 1_000_000,
                      end: Int64(line) * 1_000_000, body: .quantity(Quantity(60, "count/min"), count: 1)))
    }

    private func save(into store: Store) async throws -> [Int: ImportOutcome] {
        let told = Mutex<[Int: ImportOutcome]>([:])
        var saver = BatchSaver(destination: store) { batch, index, outcome in
            let line = batch.lines[index]
            XCTAssertEqual(batch[index].sample, self.items[line].sample, "told with its object")
            told.withLock { XCTAssertNil($0.updateValue(outcome, forKey: line), "line \(line) told twice") }
        }
        var batch = BatchSaver.Batch()
        for (line, sample) in items { batch.append(line: line, sample) }
        try await saver.submit(batch)
        try await saver.settleAll()
        return told.withLock { $0 }
    }

    /// Regression: each refusal used to resend the whole rest of the batch, so importing an export
    /// again into the store it came from sent a batch of n objects n times (n²/2 objects: 500,500 here).
    func testABatchRefusedObjectByObjectIsNotSentAgainPerObject() async throws {
        let store = Store(elsewhere: Set(items.map(\.sample.uuid)))
        let told = try await save(into: store)
        XCTAssertEqual(told.count, items.count)
        XCTAssertTrue(told.values.allSatisfy { if case .alreadyPresent = $0 { true } else { false } })
        XCTAssertLessThanOrEqual(store.saves.withLock { $0 }, 2 * items.count)
        XCTAssertLessThanOrEqual(store.objectsSent.withLock { $0 }, 12 * items.count, "about n log n objects sent")
        XCTAssertTrue(store.stored.withLock { $0 }.isEmpty)
    }

    func testTheObjectsAroundRefusedOnesAreStoredOnceEach() async throws {
        let elsewhere = Set(items.enumerated().filter { $0.offset % 7 == 3 }.map(\.element.sample.uuid))
        let store = Store(elsewhere: elsewhere)
        let told = try await save(into: store)
        XCTAssertEqual(told.count, items.count)
        for (line, sample) in items {
            switch told[line] {
            case .alreadyPresent?: XCTAssertTrue(elsewhere.contains(sample.uuid), "line \(line)")
            case .stored?: XCTAssertFalse(elsewhere.contains(sample.uuid), "line \(line)")
            default: XCTFail("line \(line): \(String(describing: told[line]))")
            }
        }
        let stored = store.stored.withLock { $0 }
        XCTAssertEqual(stored.count, items.count - elsewhere.count)
        XCTAssertEqual(Set(stored).count, stored.count, "no object stored twice")
        XCTAssertEqual(stored, items.map(\.sample.uuid).filter { !elsewhere.contains($0) }, "saved in the input's order")
    }
}
