import Foundation
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest

/// Two healthd nodes on one PostgreSQL store (a schema of a database of their own): what one node
/// commits reaches the other's live calls, caches and connections, and racing writes through both
/// stay exact. Runs when HEALTHSTORE_TEST_POSTGRES names a server and healthd has `--store postgresql://`.
final class MultiNodeTests: XCTestCase {
    private let hr = Fixtures.heartRate
    private let band = "com.example.band"

    func testObserverAnchoredAndStatisticsUpdatesOnOneNodeHearASaveOnTheOther() throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (a, b) = (nodes.a, nodes.b)
        let watcher = try RawClient(port: b.port)
        watcher.hello(a.ownerToken)
        let live = try LiveHeartRateCalls(on: watcher)

        let writer = try RawClient.session(a, token: a.ownerToken)
        let sample = Fixtures.heartRateSample(150, minutesAgo: 1)
        try writer.save([sample])

        let updates = try live.updates(on: watcher)
        XCTAssertEqual(updates.added, [sample.uuid], "B's anchored query hears A's save")
        XCTAssertEqual(updates.event, .observerEvent(changedTypes: [hr], sequence: 1))
        XCTAssertEqual(try XCTUnwrap(updates.changed.first?.maximum).value(in: "count/min"), 150, accuracy: 1e-9)
    }

    func testOwnersRequestFeedOnOneNodeSeesARequestMadeOnTheOther() throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (a, b) = (nodes.a, nodes.b)
        let owner = try RawClient.session(b, token: a.ownerToken)
        let token = try owner.registerApp(band)
        let live = owner.submit(.listAuthorizationRequests(bundleID: nil, updates: true))
        XCTAssertEqual(owner.receive(callID: live)?.result, .authorizationRequests([]))
        let app = try RawClient.session(a, token: token)
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: [])), .requestAuthorization)
        guard case .authorizationRequests(let pending)? = owner.receive(callID: live)?.result else { return XCTFail("no update on B") }
        XCTAssertEqual(pending.map(\.type), [hr])
        XCTAssertEqual(pending.first?.app.bundleID, band)
    }

    func testRevokingOrRotatingOnOneNodeEndsTheAppsConnectionsOnTheOther() throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (owner, onB) = try nodes.appOnB(band)
        guard case .appCredential(_, let rotated)? = owner.call(.rotateAppToken(bundleID: band)) else { return XCTFail("no credential") }
        XCTAssertEqual(try XCTUnwrap(onB.messagesUntilClosed(), "B kept the rotated token's connection").last?.result.errorCode, .unauthenticated)

        let renewed = try RawClient.session(nodes.b, token: rotated)
        XCTAssertEqual(owner.call(.revokeApp(bundleID: band)), .revokeApp(connectionsClosed: 0))
        XCTAssertEqual(try XCTUnwrap(renewed.messagesUntilClosed(), "B kept the revoked app's connection").last?.result.errorCode, .unauthenticated)
    }

    /// B's link to the other nodes is cut while A rotates the app's token, so B never hears of it:
    /// once B's listener is back, B checks its connections' tokens again and ends the old one's.
    func testATokenRotatedWhileTheLinkIsDownEndsItsConnectionsOnceItIsBack() throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (owner, onB) = try nodes.appOnB(band)
        let listeners = "FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()"
        XCTAssertEqual(try nodes.database.run("SELECT count(*) \(listeners)"), "2", "both nodes listen")
        try nodes.database.run("SELECT pg_terminate_backend(pid) \(listeners)")
        let deadline = Date().addingTimeInterval(5)
        while try nodes.database.run("SELECT count(*) \(listeners)") != "0", Date() < deadline { usleep(5_000) }
        guard case .appCredential? = owner.call(.rotateAppToken(bundleID: band)) else { return XCTFail("no credential") }
        XCTAssertEqual(try XCTUnwrap(onB.messagesUntilClosed(), "B kept the rotated token's connection").last?.result.errorCode, .unauthenticated)
    }

    func testPermissionDecisionOnOneNodeTakesEffectOnTheOther() throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (owner, app) = try nodes.appOnB(band)
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: [])), .requestAuthorization)
        // B now holds the app's (pending) states in its cache.
        XCTAssertEqual(app.call(.getAuthorizationStatus(types: [hr])), .authorizationStatus([TypeAuthorizationStatus(type: hr, status: .notDetermined)]))
        try owner.decide(band, [hr], .share, grant: true)
        // The decision reaches B as its commit's notification does: wait for that, not for a fixed time.
        let authorized = ServerResult.authorizationStatus([TypeAuthorizationStatus(type: hr, status: .sharingAuthorized)])
        let deadline = Date().addingTimeInterval(20)
        var status = app.call(.getAuthorizationStatus(types: [hr]))
        while status != authorized && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            status = app.call(.getAuthorizationStatus(types: [hr]))
        }
        XCTAssertEqual(status, authorized, "B kept the app's cached permission states")
        XCTAssertEqual(app.call(.saveObjects([Fixtures.heartRateSample(70)])), .saveObjects([.stored]))
    }

    func testTheSameUUIDSavedThroughBothNodesAtOnceIsStoredOnce() async throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (a, b) = (nodes.a, nodes.b)
        let (onA, onB) = try await connect(a, b)
        for round in 0..<Self.rounds {
            let sample = Fixtures.heartRateSample(60, minutesAgo: 1 + round)
            async let first = onA.save([sample])
            async let second = onB.save([sample])
            let outcomes = try await [first, second].flatMap { $0 }
            XCTAssertEqual(Set(outcomes), [.stored, .alreadyStored], "round \(round)")
        }
        let stored = try await onA.samples(SampleQuery(types: [hr])).map(\.uuid)
        XCTAssertEqual(stored.count, Self.rounds)
        XCTAssertEqual(Set(stored).count, Self.rounds)
    }

    func testSyncVersionsRacingThroughBothNodesLeaveTheHigherVersion() async throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (a, b) = (nodes.a, nodes.b)
        let (onA, onB) = try await connect(a, b)
        for round in 0..<Self.rounds {
            func versioned(_ version: Int64) -> Sample {
                let end = Time.now() - Int64(round + 1) * 60_000_000
                return Sample(type: hr, start: end - 1_000_000, end: end,
                              metadata: [MetadataKey.syncIdentifier: .string("record-\(round)"), MetadataKey.syncVersion: .int(version)],
                              body: .quantity(Quantity(Double(60 + version), "count/min"), count: 1))
            }
            // Which node carries the higher version alternates.
            let (low, high) = (versioned(1), versioned(2))
            async let first = onA.save([round.isMultiple(of: 2) ? low : high])
            async let second = onB.save([round.isMultiple(of: 2) ? high : low])
            let outcomes = Set(try await [first, second].flatMap { $0 })
            XCTAssertTrue(outcomes == [.stored, .replaced] || outcomes == [.stored, .keptExisting], "round \(round): \(outcomes)")
        }
        let stored = try await onB.samples(SampleQuery(types: [hr]))
        XCTAssertEqual(stored.count, Self.rounds)
        XCTAssertTrue(stored.allSatisfy { $0.metadata[MetadataKey.syncVersion] == .int(2) }, "a lower version survived")
    }

    /// Writers on both nodes commit at once while a reader pages by anchor all along: the reader
    /// sees every object exactly once.
    func testAnchoredReaderPagingDuringWritesOnBothNodesNeverSkipsOrRepeats() async throws {
        let nodes = try Nodes()
        defer { nodes.stop() }
        let (a, b) = (nodes.a, nodes.b)
        let (onA, onB) = try await connect(a, b)
        let reader = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: b.port), hello: Hello(token: a.ownerToken))
        defer { reader.close() }
        var anchor: Data?
        var seen: [UUID] = []
        var saved = Set<UUID>()
        for round in 0..<Self.rounds {
            let writers = [onA, onB, onA, onB].enumerated().map { index, client in
                Task {
                    var uuids: [UUID] = []
                    for batch in 0..<5 {
                        let samples = (0..<4).map { Fixtures.heartRateSample(Double(60 + index), minutesAgo: 1 + $0 + 4 * batch + 100 * index + 1000 * round) }
                        _ = try await client.save(samples)
                        uuids += samples.map(\.uuid)
                    }
                    return uuids
                }
            }
            let done = Atomic<Int>(0)
            let finish = Task {
                var all: [UUID] = []
                for writer in writers { all += try await writer.value }
                done.store(1, ordering: .sequentiallyConsistent)
                return all
            }
            // Page while the writers run, then once more after they finished.
            var last = false
            while !last {
                last = done.load(ordering: .sequentiallyConsistent) == 1
                let page = try await reader.anchored(AnchoredQuery(types: [hr], anchor: anchor, limit: 5))
                seen += page.samples.map(\.uuid)
                anchor = page.anchor
                if !page.samples.isEmpty { last = false }
            }
            saved.formUnion(try await finish.value)
        }
        XCTAssertEqual(seen.count, Set(seen).count, "the reader saw an object twice")
        XCTAssertEqual(Set(seen), saved, "the reader skipped \(saved.subtracting(seen).count) object(s)")
        XCTAssertEqual(saved.count, Self.rounds * 4 * 5 * 4)
    }

    // MARK: helpers

    private static let rounds = 25

    private func connect(_ a: ServerProcess, _ b: ServerProcess) async throws -> (HealthConnection, HealthConnection) {
        let hello = Hello(token: a.ownerToken)
        return (try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: a.port), hello: hello),
                try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: b.port), hello: hello))
    }

}

/// Two nodes on a fresh schema of a database of their own.
private struct Nodes {
    let database: SharedDatabase
    let a: ServerProcess
    let b: ServerProcess

    init() throws {
        database = try SharedDatabase()
        let store = database.url + (database.url.contains("?") ? "&" : "?") + "options=-csearch_path%3Dhs_nodes"
        a = try ServerProcess(extraArguments: ["--store", store])
        guard !a.ownerToken.isEmpty else { throw XCTSkip("healthd on PostgreSQL wrote no owner.token on first start") }
        b = try ServerProcess(extraArguments: ["--store", store])
    }

    /// An owner's session on A, and an app it registered there connected to B.
    func appOnB(_ bundleID: String) throws -> (owner: RawClient, app: RawClient) {
        let owner = try RawClient.session(a, token: a.ownerToken)
        return (owner, try RawClient.session(b, token: try owner.registerApp(bundleID)))
    }

    func stop() {
        a.stopNow()
        b.stopNow()
        database.drop()
    }
}
