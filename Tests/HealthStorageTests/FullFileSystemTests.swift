import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// A real full file system: a tiny tmpfs (needs root and permission to mount; skipped otherwise).
final class FullFileSystemTests: XCTestCase {
    /// Runs /usr/bin/`tool`; true when it succeeded.
    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    func testFillingTheDiskRefusesSavesKeepsDataAndSurvivesRestart() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") else {
            throw XCTSkip("mounting a tmpfs needs root")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hs-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard try run("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", directory]) else {
            throw XCTSkip("mounting a tmpfs is not permitted here")
        }
        // Lazily: a failed assertion may leave the store open.
        defer { _ = try? run("umount", ["-l", directory]) }

        let path = directory + "/store.sqlite"
        var store = try SQLiteStore.open(path: path)
        let owner = try await store.addOwner(name: "alice").0
        let revision = SourceRevision(source: StoreFixture.watch, version: "1")
        func batch(_ round: Int64) -> SaveBatch {
            SaveBatch(owner: owner, revision: revision, defaultDevice: nil,
                      objects: (0..<200).map { StoreFixture.heartRate(s(round * 1_000 + $0)) })
        }
        func storedCount() async throws -> Int {
            try await store.countSamples(owner: owner, types: [StoreFixture.heartRate], predicate: nil,
                                         scope: .everything(callerBundleID: "x")).reduce(0) { $0 + Int($1.count) }
        }

        var acknowledged = 0
        var refusal: HealthError?
        for round in 0..<Int64(1_000) {
            do {
                _ = try await store.save(batch(round))
                acknowledged += 200
            } catch let error as HealthError {
                refusal = error
                break
            }
        }
        XCTAssertEqual(refusal?.code, .resourceExhausted, "\(String(describing: refusal))")
        XCTAssertTrue(refusal?.message.contains("the store is full") ?? false, "\(String(describing: refusal))")
        XCTAssertGreaterThan(acknowledged, 0)
        try await expect(try await storedCount(), acknowledged)

        await store.close()
        store = try SQLiteStore.open(path: path)
        try await expect(try await storedCount(), acknowledged, "restarted on the full disk, every acknowledged sample is there")
        do {
            _ = try await store.save(batch(5_000))
            XCTFail("a save on the full disk succeeded")
        } catch let error as HealthError {
            XCTAssertEqual(error.code, .resourceExhausted, "\(error)")
        }

        XCTAssertTrue(try run("mount", ["-o", "remount,size=16m", directory]))
        _ = try await store.save(batch(5_000))
        try await expect(try await storedCount(), acknowledged + 200, "saves go on once there is room, without a restart")
        await store.close()
    }
}
