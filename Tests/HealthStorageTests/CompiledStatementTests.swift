import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// The writer compiles the statements it runs again and again only once: on SQLite a 100-row claim
/// or insert takes about as long to parse and plan as to insert 60 rows, and an import runs one for
/// every odd-sized run of samples and every series it finishes. SQLite only (PostgreSQL's array
/// insert is one statement whatever the rows, and its statements are not counted).
final class CompiledStatementTests: XCTestCase {
    /// Statements the writer's connection has compiled so far.
    private func compiled(_ f: StoreFixture) async throws -> Int {
        try await f.store.write { context throws(HealthError) in (context.db as? SQLiteConnection)?.statementsCompiled ?? -1 }
    }

    /// Batches of 37 plain samples (no chunk size of the writer's own): once one is saved, more of them
    /// compile nothing (before, each compiled a 37-row claim and insert for itself), and every sample is stored.
    func testBatchesOfAnOddNumberOfSamplesCompileNothingOnceOneIsSaved() async throws {
        let f = try await StoreFixture()
        func batch(_ round: Int64) -> [Sample] { (0..<37).map { StoreFixture.heartRate(s(round * 100 + $0), bpm: 70) } }
        _ = try await f.save(batch(0))
        let warm = try await compiled(f)
        for round in 1...4 {
            let outcomes = try await f.save(batch(Int64(round)))
            XCTAssertEqual(outcomes, Array(repeating: .stored, count: 37))
        }
        let after = try await compiled(f)
        XCTAssertEqual(after - warm, 0, "statements compiled by four more batches of 37")
        let stored = try await f.query()
        XCTAssertEqual(stored.count, 5 * 37)
    }

    /// Finishing a heartbeat series reads the finished sample back: once one series is finished, more
    /// of them compile nothing (before, each compiled that read for itself).
    func testFinishedSeriesCompileNothingOnceOneIsFinished() async throws {
        let f = try await StoreFixture()
        let t0: Microseconds = 1_700_000_000_000_000
        let beats = (0..<20).map { Heartbeat(offset: Int64($0) * 800_000, precededByGap: false) }
        func build() async throws -> Sample? {
            let id = UUID()
            _ = try await f.store.insertSeriesData(owner: f.owner, SeriesInsert(builderID: id, type: TypeCatalog.heartbeatSeriesType.identifier,
                                                                                  start: t0, points: .beats(beats)),
                                                   revision: SourceRevision(source: StoreFixture.watch, version: "1.0"),
                                                   defaultDevice: StoreFixture.watchDevice, byOwner: false)
            let finished = try await f.store.finishSeries(owner: f.owner, SeriesFinish(builderID: id),
                                                          by: Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false))
            XCTAssertEqual(finished.map(\.uuid), [id])
            return finished.first
        }
        _ = try await build()
        let warm = try await compiled(f)
        for _ in 0..<3 {
            let series = try await build()
            XCTAssertEqual(series?.seriesCount, 20)
        }
        let after = try await compiled(f)
        XCTAssertEqual(after - warm, 0, "statements compiled by three more finished series")
    }
}
