import Foundation
import HealthModel
import HealthWire
import XCTest

/// docs/semantics.md decision 7 on the paths a reviewer found leaking: correlations none of whose readings the app
/// may read, anchors that moved with other sources' writes, and a Hello racing a revoke.
final class PrivacyLeakTests: XCTestCase {
    private let app = "com.example.systolic-only"

    /// A server, its owner, and an app that shares both readings but reads only systolic.
    private func systolicReader() throws -> (server: ServerProcess, owner: RawClient, client: RawClient) {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let client = try RawClient.session(server, token: try owner.registerApp(app))
        let types = [Authz.systolic, Authz.diastolic, Authz.heartRate]
        XCTAssertEqual(client.call(.requestAuthorization(share: types, read: types)), .requestAuthorization)
        try owner.decide(app, types, .share, grant: true)
        try owner.decide(app, [Authz.systolic], .read, grant: true)
        try owner.decide(app, [Authz.diastolic, Authz.heartRate], .read, grant: false)
        return (server, owner, client)
    }

    private func diastolicOnly(at minutes: Int64) -> Sample {
        Authz.bloodPressure(systolic: nil, diastolic: (UUID(), 80), at: minutes)
    }

    func testObserverIsSilentAboutCorrelationsWithNoReadableReading() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        let observer = client.submit(.observe(types: [Authz.bloodPressure, Authz.heartRate], predicate: nil, frequency: nil))
        XCTAssertEqual(client.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        try owner.save([diastolicOnly(at: 0)])
        // Heart rate is read-denied too, so the app's own save is the first thing it may hear of.
        try client.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 1)])
        XCTAssertEqual(client.nextEvent(observer)?.result, .observerEvent(changedTypes: [Authz.heartRate], sequence: 1))
    }

    /// A wake-up for others' invisible change must not move the observer past the app's own
    /// change of another type that committed meanwhile (a CI failure: the app never heard of it).
    func testOwnChangeRacingOthersInvisibleChangeIsHeard() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        let observer = client.submit(.observe(types: [Authz.diastolic, Authz.heartRate], predicate: nil, frequency: nil))
        XCTAssertEqual(client.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        client.setTimeout(seconds: 5)
        for round in 0..<60 {
            let minute = Int64(round) * 2
            let othersSave = owner.submit(.saveObjects([Authz.quantity(Authz.diastolic, 80, "mmHg", at: minute)]))
            try client.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: minute + 1)])
            XCTAssertEqual(client.nextEvent(observer)?.result, .observerEvent(changedTypes: [Authz.heartRate], sequence: UInt64(round + 1)),
                           "round \(round)")
            _ = owner.collect(othersSave)
        }
    }

    func testSourcesOfACorrelationTypeLeaveOutSourcesOfUnreadableCorrelations() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        try owner.save([diastolicOnly(at: 0)])
        XCTAssertEqual(client.call(.querySources(type: Authz.bloodPressure, predicate: nil)), .sources([]))
        // A correlation holding a readable reading does name its source.
        try owner.save([Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 5)])
        XCTAssertEqual(client.call(.querySources(type: Authz.bloodPressure, predicate: nil)), .sources([Source(name: "Health", bundleID: "com.apple.Health")]))
    }

    func testAnchoredQueryReportsNoDeletionOfACorrelationTheAppNeverSaw() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        let hidden = diastolicOnly(at: 0), seen = Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 5)
        try owner.save([hidden, seen])
        XCTAssertEqual(owner.call(.deleteObjects(.uuids([hidden.uuid, seen.uuid]))), .deleteObjects(deletedCount: 2))
        guard case .anchored(let samples, let deleted, _, _, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.bloodPressure]))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(samples, [])
        XCTAssertEqual(deleted.map(\.uuid), [seen.uuid])
    }

    func testLimitedQueryIsFilledWithReadableCorrelations() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        let readable = [Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 10),
                        Authz.bloodPressure(systolic: (UUID(), 121), diastolic: nil, at: 11)]
        try owner.save((0..<3).map { diastolicOnly(at: $0) } + readable)
        let sorted = [SampleSortDescriptor(.startDate)]
        XCTAssertEqual(Authz.uuids(client.results(.querySamples(SampleQuery(types: [Authz.bloodPressure], sort: sorted, limit: 2)))),
                       Set(readable.map(\.uuid)))
        guard case .anchored(let samples, _, _, _, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.bloodPressure], limit: 2))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(Set(samples.map(\.uuid)), Set(readable.map(\.uuid)))
    }

    /// The anchor only moves when the app is handed something: other sources' writes leave it as it was.
    func testAnchorDoesNotMoveWithOtherSourcesWrites() throws {
        let (server, owner, client) = try systolicReader()
        defer { withExtendedLifetime(server) {} }
        let query = AnchoredQuery(types: [Authz.heartRate])
        let empty = try anchor(client.call(.queryAnchored(query)))
        try owner.save([Authz.quantity(Authz.heartRate, 90, "count/min", at: 0)])
        XCTAssertEqual(try anchor(client.call(.queryAnchored(query))), empty, "nothing readable yet: the empty anchor")
        try client.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 1)])
        let own = try anchor(client.call(.queryAnchored(query)))
        XCTAssertNotEqual(own, empty)
        try owner.save([Authz.quantity(Authz.heartRate, 91, "count/min", at: 2)])
        XCTAssertEqual(try anchor(client.call(.queryAnchored(query))), own)
        guard case .anchored([], [], let after, _, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.heartRate], anchor: own))) else {
            return XCTFail("others' write reached the app")
        }
        XCTAssertEqual(after, own, "an answer with nothing in it hands back the caller's anchor")
        // Paging from there still works, and the anchor names no owner in clear.
        try client.save([Authz.quantity(Authz.heartRate, 61, "count/min", at: 3)])
        guard case .anchored(let samples, [], let next, _, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.heartRate], anchor: own))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(samples.map(\.quantity?.value), [61])
        for ownerID in [Int64(1), 2] {
            let clear = withUnsafeBytes(of: ownerID.bigEndian) { Data($0) }
            XCTAssertNil(next.range(of: clear), "anchor carries owner id \(ownerID) in clear")
        }
    }

    private func anchor(_ answer: ServerResult?) throws -> Data {
        guard case .anchored(_, _, let anchor, _, _, _)? = answer else { throw TestFailure("no anchored answer: \(String(describing: answer))") }
        return anchor
    }

    /// Hellos racing a revoke: every one either is refused or has its connection closed. A fresh
    /// server per round, and no new Hello once the revoke is answered, because refused Hellos slow
    /// down further ones from the same peer.
    func testHelloRacingARevokeNeverSurvivesIt() throws {
        for round in 0..<10 {
            let server = try ServerProcess()
            let owner = try RawClient.session(server, token: server.ownerToken)
            let bundleID = "com.example.race"
            let token = try owner.registerApp(bundleID), port = server.port
            let attempts = DispatchGroup()
            let survivors = SurvivorList(), revoked = Flag()
            for _ in 0..<8 {
                DispatchQueue.global().async(group: attempts) {
                    // Says Hello until the token is refused, keeping every connection it got in.
                    while !revoked.isSet, let client = try? RawClient(port: port) {
                        client.setTimeout(seconds: 5)
                        guard case .hello? = client.hello(token) else { break }
                        survivors.append(client)
                    }
                }
            }
            Thread.sleep(forTimeInterval: 0.05)
            XCTAssertNotNil(owner.call(.revokeApp(bundleID: bundleID)))
            revoked.set()
            attempts.wait()
            for client in survivors.all {
                XCTAssertNotNil(client.messagesUntilClosed(), "round \(round): a connection outlived the revoke of its app")
            }
        }
    }
}

/// Connections collected from several threads.
private final class SurvivorList: @unchecked Sendable {
    private let lock = NSLock()
    private var clients: [RawClient] = []
    func append(_ client: RawClient) { lock.withLock { clients.append(client) } }
    var all: [RawClient] { lock.withLock { clients } }
}

/// A flag set once, read from several threads.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
