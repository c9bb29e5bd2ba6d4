import Foundation
import HealthModel
@testable import HealthStorage
import Synchronization
import XCTest

/// Acknowledged saves survive kill -9: a child process (this test binary, re-run on one test) saves
/// batches and prints every acknowledged UUID; the parent kills it at a random moment, reopens the
/// store and looks for every acknowledged sample.
final class CrashTests: XCTestCase {
    private static let storeVariable = "HEALTHSTORE_CRASH_CHILD_STORE"
    private static let ownerVariable = "HEALTHSTORE_CRASH_CHILD_OWNER"

    /// The child's role; does nothing in a normal test run.
    func testCrashChildWriter() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[Self.storeVariable], let ownerText = environment[Self.ownerVariable],
              let ownerID = Int64(ownerText) else { return }
        let store = try SQLiteStore.open(path: path)
        // A run written every few saves and merged a few entries a commit, so the kill may fall in a
        // merge: the parent's reopened filter must hold every level's UUIDs, and every UUID stay found once.
        // Two writers' batches are bulk claims (runs of their own), the others' enter the recent level.
        try await store.write { context throws(HealthError) in
            context.uuidRecentLimit = 50
            context.uuidMergeSliceEntries = 60
            context.uuidRunClaimRows = 20
        }
        let revision = SourceRevision(source: StoreFixture.watch, version: "1")
        let deadline = Date().addingTimeInterval(30)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var round: Int64 = 0
                    while Date() < deadline {
                        round += 1
                        let samples = (0..<(writer < 2 ? 10 : 20)).map {
                            StoreFixture.heartRate(s(round * 100 + Int64($0)), bpm: Double(writer + 50))
                        }
                        let batch = SaveBatch(owner: OwnerID(ownerID), revision: revision, defaultDevice: nil, objects: samples)
                        guard (try? await store.save(batch)) != nil else { continue }
                        // One write(2) of < PIPE_BUF bytes: lines from concurrent writers never interleave.
                        let lines = samples.map { "ACK \($0.uuid.uuidString)\n" }.joined()
                        FileHandle.standardOutput.write(Data(lines.utf8))
                    }
                }
            }
        }
    }

    func testAcknowledgedSavesSurviveKill9() async throws {
        let f = try await StoreFixture()
        await f.store.close()
        var generator = SystemRandomNumberGenerator()
        for round in 0..<3 {
            let output = Mutex(Data())
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["HealthStorageTests.CrashTests/testCrashChildWriter"]
            process.environment = ProcessInfo.processInfo.environment.merging(
                [Self.storeVariable: f.path, Self.ownerVariable: String(f.owner.rawValue)]) { $1 }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let reader = Thread {
                while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty {
                    output.withLock { $0.append(chunk) }
                }
            }
            reader.start()
            // Let it acknowledge something, then kill it at a random moment of its work.
            let start = Date()
            while output.withLock({ $0.count }) < 2_000 && Date().timeIntervalSince(start) < 20 {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...150_000_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            while !reader.isFinished { try await Task.sleep(nanoseconds: 2_000_000) }

            let text = String(decoding: output.withLock { $0 }, as: UTF8.self)
            let acknowledged = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .filter { $0.hasPrefix("ACK ") }.compactMap { UUID(uuidString: String($0.dropFirst(4))) }
            XCTAssertFalse(acknowledged.isEmpty, "round \(round): the child acknowledged nothing")
            let store = try SQLiteStore.open(path: f.path)
            let stored = try await store.querySamples(owner: f.owner, types: [StoreFixture.heartRate], predicate: .uuids(Set(acknowledged)),
                                                      sort: [], limit: 0, scope: .everything(callerBundleID: "x"))
            XCTAssertEqual(stored.count, Set(acknowledged).count, "round \(round): acknowledged samples lost after kill -9")
            // The UUID filter, built while the reopened store serves, holds every stored UUID: the claim trusts its "absent".
            let owner = f.owner.rawValue
            _ = await store.openFinished()
            let missing = try await store.write { context throws(HealthError) in
                let filter = try context.currentUUIDFilter()
                return acknowledged.filter { filter?.mayContain(owner: owner, $0) != true }.count
            }
            XCTAssertEqual(missing, 0, "round \(round): stored UUIDs the reopened filter calls absent")
            XCTAssertEqual(try f.count(UUIDLevels.all), try f.count("samples"), "round \(round): a UUID lost or found twice")
            await store.close()
        }
    }
}
