import Foundation
import HealthModel
import HealthWire
import XCTest

/// Decision 7 on the paths a reviewer found leaking: correlations none of whose readings the app
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
        XCTAssertEqual(client.receive(callID: observer)?.result, .observerEvent(changedTypes: []))
        try owner.save([diastolicOnly(at: 0)])
        // Heart rate is read-denied too, so the app's own save is the first thing it may hear of.
        try client.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 1)])
        XCTAssertEqual(client.receive(callID: observer)?.result, .observerEvent(changedTypes: [Authz.heartRate]))
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
        guard case .anchored(let samples, let deleted, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.bloodPressure]))) else {
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
        guard case .anchored(let samples, _, _, _)? = client.call(.queryAnchored(AnchoredQuery(types: [Authz.bloodPressure], limit: 2))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(Set(samples.map(\.uuid)), Set(readable.map(\.uuid)))
    }
}
