import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The SQLite store's WAL is checkpointed on a thread of its own (`WALCheckpointer`), the writer copying
/// only the small remainder that lets the WAL start over, and stays bounded when that thread falls behind.
final class WALCheckpointerTests: XCTestCase {
    private static func options(pages: Int, pause: (@Sendable () -> Void)? = nil) -> SQLiteStore.Options {
        var options = SQLiteStore.Options()
        options.checkpointPages = pages
        options.checkpointPause = pause
        return options
    }

    private static func walBytes(_ f: StoreFixture) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: f.path + "-wal")[.size] as? Int) ?? 0
    }

    func testTheThreadCheckpointsWhileTheWriterCommitsAndTheWriterOnlyFinishes() async throws {
        let f = try await StoreFixture(options: Self.options(pages: 256))
        let checkpointer = try await f.store.walCheckpointer()
        for index in 0..<600 { _ = try await f.save([StoreFixture.heartRate(s(Int64(index)))]) }
        let metrics = try XCTUnwrap(f.store.metrics)
        XCTAssertGreaterThan(metrics.checkpointSeconds.snapshot().cumulative.last ?? 0, 0, "the thread checkpointed")
        XCTAssertGreaterThan(metrics.writerCheckpointSeconds.snapshot().cumulative.last ?? 0, 0,
                             "the writer copied the remainders, so the WAL started over")
        XCTAssertEqual(checkpointer.writerFallbacks, 0, "the writer never had to copy the whole WAL")
        // Started over at the writer's transaction after each remainder: never near the fallback's length.
        XCTAssertLessThanOrEqual(Self.walBytes(f), 2 * Int(checkpointer.pages) * 8192)
        await f.store.close()
        XCTAssertEqual(Self.walBytes(f), 0, "the thread stops before the writer's last checkpoint, which empties the WAL")
        try await f.reopen()
        try await expect(await f.query().count, 600)
        await f.store.close()
    }

    func testTheWriterCheckpointsItselfWhileTheThreadIsStuck() async throws {
        let stuck = Gate()
        let f = try await StoreFixture(options: Self.options(pages: 32, pause: { stuck.pass() }))
        let checkpointer = try await f.store.walCheckpointer()
        for index in 0..<400 { _ = try await f.save([StoreFixture.heartRate(s(Int64(index)))]) }
        XCTAssertGreaterThan(checkpointer.writerFallbacks, 0)
        XCTAssertEqual(f.store.metrics?.checkpointSeconds.snapshot().cumulative.last, 0)
        // Past its own mark by at most the commit that crossed it.
        XCTAssertLessThanOrEqual(Self.walBytes(f), (Int(checkpointer.writerPages) + 16) * 8192)
        stuck.open()
        await f.store.close()
        try await f.reopen()
        try await expect(await f.query().count, 400)
        await f.store.close()
    }
}

/// Holds every thread that passes it until it is opened.
private final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func pass() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }
}

extension EngineStore {
    /// The SQLite writer connection's checkpoint thread.
    func walCheckpointer() async throws -> WALCheckpointer {
        try await write { context throws(HealthError) in
            guard let checkpointer = (context.db as? SQLiteConnection)?.checkpointer else {
                throw HealthError(.internalError, "no checkpoint thread")
            }
            return checkpointer
        }
    }
}
