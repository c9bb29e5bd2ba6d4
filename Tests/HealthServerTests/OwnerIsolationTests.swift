import Foundation
import HealthModel
import HealthWire
import XCTest

/// Owners share a server, never data: nothing owner B or its apps do is visible to owner A or
/// A's apps, through any call (issue 6, point 4).
final class OwnerIsolationTests: XCTestCase {
    private let band = "com.example.band"
    private let everything = [Authz.heartRate, Authz.steps, Authz.bodyMass, Authz.systolic, Authz.diastolic, Authz.activeEnergy]

    func testNothingOfAnotherOwnerCanBeReadWrittenDeletedObservedOrDetected() throws {
        let server = try ServerProcess()
        let operatorClient = try RawClient.session(server, token: server.operatorToken)
        let ownerA = try RawClient.session(server, token: server.ownerToken, device: Device(name: "Scale A"))
        let ownerB = try RawClient.session(server, token: try operatorClient.addOwner("B"), device: Device(name: "Scale B"))
        // The same bundle id registered by both owners: two unrelated apps.
        let appA = try grantedApp(server, owner: ownerA, device: Device(name: "Band A"))
        let appB = try grantedApp(server, owner: ownerB, device: Device(name: "Band B"))
        let onlyB = try RawClient.session(server, token: try ownerB.registerApp("com.example.only-b"))

        try ownerA.save([Authz.quantity(Authz.heartRate, 100, "count/min", at: 0),
                         Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 10)])
        try appA.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 20)])
        XCTAssertEqual(ownerA.call(.writeCharacteristics(Characteristics(biologicalSex: 1))), .writeCharacteristics)

        let before = [appA, ownerA].map(runScript)
        let liveCalls = [appA, ownerA].map { client in
            (client.submit(.observe(types: [Authz.heartRate, Authz.bodyMass, Authz.steps], predicate: nil, frequency: nil)),
             client.submit(.queryAnchored(AnchoredQuery(types: [Authz.heartRate, Authz.bodyMass], updates: true))),
             client.submit(.listAuthorizationRequests(bundleID: nil, updates: true)))
        }
        for (client, ids) in zip([appA, ownerA], liveCalls) {
            XCTAssertEqual(client.receive(callID: ids.0)?.result, .observerEvent(changedTypes: [], sequence: 0))
            guard case .anchored(_, _, _, true, _, _)? = client.receive(callID: ids.1)?.result else { return XCTFail("no anchored page") }
        }
        XCTAssertEqual(ownerA.receive(callID: liveCalls[1].2)?.result, .authorizationRequests([]))

        // Owner B's store lives: saves, a deletion, characteristics, a pending request.
        let secretB = Authz.quantity(Authz.heartRate, 150, "count/min", at: 30)
        try ownerB.save([secretB, Authz.quantity(Authz.steps, 900, "count", at: 40), Authz.quantity(Authz.bodyMass, 80, "kg", at: 50),
                         Authz.bloodPressure(systolic: (UUID(), 140), diastolic: (UUID(), 90), at: 60)])
        let goneB = Authz.quantity(Authz.heartRate, 151, "count/min", at: 70)
        try appB.save([goneB, Authz.quantity(Authz.activeEnergy, 300, "kcal", at: 80)])
        XCTAssertEqual(appB.call(.deleteObjects(.uuids([goneB.uuid]))), .deleteObjects(deletedCount: 1))
        XCTAssertEqual(ownerB.call(.writeCharacteristics(Characteristics(biologicalSex: 2, bloodType: 3))), .writeCharacteristics)
        XCTAssertEqual(onlyB.call(.requestAuthorization(share: [Authz.heartRate], read: [Authz.heartRate])), .requestAuthorization)

        // Same bytes, anchors included: B's activity does not even move A's anchor.
        let after = [appA, ownerA].map(runScript)
        for (first, second) in zip(before, after) {
            for (call, (a, b)) in zip(script, zip(first, second)) { XCTAssertEqual(a, b, "\(call)") }
        }

        // B's objects cannot be deleted, and look exactly like unknown ones.
        for client in [appA, ownerA] {
            XCTAssertEqual(Authz.withoutUUIDs(client.call(.deleteObjects(.uuids([secretB.uuid])))),
                           Authz.withoutUUIDs(client.call(.deleteObjects(.uuids([UUID()])))))
            XCTAssertEqual(client.call(.deleteObjects(.matching(type: Authz.heartRate, predicate: .uuids([secretB.uuid])))),
                           .deleteObjects(deletedCount: 0))
        }
        // B's apps are unknown to A's owner calls, exactly like apps that do not exist.
        for (call, unknown) in zip(ownerCalls(naming: "com.example.only-b"), ownerCalls(naming: "com.example.unknown")) {
            let answer = ownerA.call(call)
            XCTAssertEqual(answer?.errorCode, .notFound, "\(call)")
            XCTAssertEqual(answer.map { "\($0)".replacingOccurrences(of: "com.example.only-b", with: "X") },
                           ownerA.call(unknown).map { "\($0)".replacingOccurrences(of: "com.example.unknown", with: "X") }, "\(call)")
        }

        // A's observers and updates stay silent about B: the first news is A's own next save.
        let sentinel = Authz.quantity(Authz.bodyMass, 70, "kg", at: 90)
        try ownerA.save([sentinel])
        for (client, ids) in zip([appA, ownerA], liveCalls) {
            XCTAssertEqual(client.nextEvent(ids.0)?.result, .observerEvent(changedTypes: [Authz.bodyMass], sequence: 1))
            guard case .anchored(let samples, let deleted, _, false, _, _)? = client.receive(callID: ids.1)?.result else { return XCTFail("no update") }
            XCTAssertEqual(samples.map(\.uuid), [sentinel.uuid])
            XCTAssertEqual(deleted, [])
        }
        // ... and the owner's request feed never heard of B's pending request.
        XCTAssertEqual(ownerA.call(.cancel(targetCallID: liveCalls[1].2)), .cancel(cancelled: true))
        XCTAssertEqual(ownerA.messages(liveCalls[1].2).map(\.result), [.callEnded(.cancelled)])
        guard case .authorizationRequests(let pendingB)? = ownerB.call(.listAuthorizationRequests(bundleID: nil, updates: false)) else {
            return XCTFail("no requests")
        }
        XCTAssertEqual(Set(pendingB.map(\.app.bundleID)), ["com.example.only-b"])

        // UUIDs are per owner: A saving B's UUID stores A's own object and leaves B's untouched.
        try appA.save([Authz.quantity(Authz.heartRate, 61, "count/min", at: 30, uuid: secretB.uuid)])
        guard case .samples(let inB)? = ownerB.call(.querySamples(SampleQuery(types: [Authz.heartRate], predicate: .uuids([secretB.uuid])))) else {
            return XCTFail("no samples")
        }
        XCTAssertEqual(inB.map { $0.quantity?.value }, [150])
        XCTAssertEqual(inB.map { $0.sourceRevision?.source.bundleID }, ["com.apple.Health"])
    }

    /// An app of `owner` registered as `band`, granted share and read for every type used here.
    private func grantedApp(_ server: ServerProcess, owner: RawClient, device: Device) throws -> RawClient {
        let app = try RawClient.session(server, token: try owner.registerApp(band), device: device)
        let read = everything + [Authz.exerciseTime, Authz.standHour] + Authz.characteristicTypes
        XCTAssertEqual(app.call(.requestAuthorization(share: everything, read: read)), .requestAuthorization)
        try owner.decide(band, everything, .share, grant: true)
        try owner.decide(band, read, .read, grant: true)
        return app
    }

    /// Read calls (and, for owners, the owner's listings); apps get PERMISSION_DENIED for the latter.
    private var script: [ClientCall] {
        let hr = Authz.heartRate
        return [
            .querySamples(SampleQuery(types: [hr, Authz.steps, Authz.bodyMass, Authz.systolic, Authz.bloodPressure, Authz.activeEnergy])),
            .queryAnchored(AnchoredQuery(types: [hr, Authz.steps, Authz.bodyMass, Authz.bloodPressure])),
            .queryStatistics(StatisticsQuery(type: hr, options: [.discreteAverage, .separateBySource])),
            .queryStatistics(StatisticsQuery(type: Authz.steps, options: .cumulativeSum)),
            .queryStatisticsCollection(StatisticsCollectionQuery(type: hr, options: .discreteMax, anchor: Authz.midnight,
                                                                 interval: IntervalComponents(hours: 1), from: Authz.midnight,
                                                                 to: Authz.midnight + Authz.dayLength)),
            .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure)),
            .querySources(type: hr, predicate: nil),
            .querySources(type: Authz.activeEnergy, predicate: nil),
            .queryDevices(type: nil),
            .queryActivitySummaries(from: Authz.day, to: Authz.day, timeZone: "UTC"),
            .readCharacteristics,
            .getAuthorizationStatus(types: [hr, Authz.steps]),
            .getRequestStatusForAuthorization(share: [hr], read: [hr]),
            .listApps,
            .listAuthorizationRequests(bundleID: nil, updates: false),
            .listPermissions(bundleID: band),
            .getSourcePriority(type: hr),
        ]
    }

    private func runScript(_ client: RawClient) -> [[UInt8]] {
        script.map { call in
            client.messages(client.submit(call)).flatMap { WireCodec.encodeServerMessage(ServerMessage(callID: 0, more: $0.more, result: $0.result)) }
        }
    }

    /// Owner calls that name an app.
    private func ownerCalls(naming bundleID: String) -> [ClientCall] {
        [.revokeApp(bundleID: bundleID), .rotateAppToken(bundleID: bundleID), .listPermissions(bundleID: bundleID),
         .listAuthorizationRequests(bundleID: bundleID, updates: false),
         .decideAuthorization(bundleID: bundleID, decisions: [AuthorizationDecision(type: Authz.heartRate, direction: .read, grant: true)])]
    }
}
