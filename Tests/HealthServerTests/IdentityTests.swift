import Foundation
import HealthModel
import HealthWire
import XCTest

/// Credentials, roles, requests, policies and changing decisions (issue 6, points 1–3 and 5).
final class IdentityTests: XCTestCase {
    private let hr = Authz.heartRate
    private let band = "com.example.band"

    func testRevokingAnAppEndsItsConnectionsAtOnceAndItsTokenForGood() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(band)
        let watching = try RawClient.session(server, token: token), idle = try RawClient.session(server, token: token)
        XCTAssertEqual(watching.call(.requestAuthorization(share: [], read: [hr])), .requestAuthorization)
        let observer = watching.submit(.observe(types: [hr], predicate: nil, frequency: nil))
        XCTAssertEqual(watching.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))

        XCTAssertEqual(owner.call(.revokeApp(bundleID: band)), .revokeApp(connectionsClosed: 2))
        for client in [watching, idle] {
            let last = try XCTUnwrap(client.messagesUntilClosed(), "connection stayed open").last
            XCTAssertEqual(last?.result.errorCode, .unauthenticated)
        }
        guard case .listApps(let apps)? = owner.call(.listApps) else { return XCTFail("no app list") }
        XCTAssertEqual(apps.map(\.revoked), [true])
        let again = try RawClient(port: server.port)
        XCTAssertEqual(again.hello(token)?.errorCode, .unauthenticated)
        XCTAssertNotNil(again.messagesUntilClosed())
    }

    func testRotatingATokenKeepsDataAndPermissionsAndRetiresTheOldToken() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(band)
        let app = try RawClient.session(server, token: token)
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: [hr])), .requestAuthorization)
        try owner.decide(band, [hr], .share, grant: true)
        try owner.decide(band, [hr], .read, grant: false)
        let saved = Authz.quantity(hr, 60, "count/min", at: 0)
        try app.save([saved])
        let permissions = owner.call(.listPermissions(bundleID: band))

        guard case .appCredential(let source, let rotated)? = owner.call(.rotateAppToken(bundleID: band)) else { return XCTFail("no credential") }
        XCTAssertEqual(source.bundleID, band)
        XCTAssertNotEqual(rotated, token)
        XCTAssertEqual(try XCTUnwrap(app.messagesUntilClosed()).last?.result.errorCode, .unauthenticated)

        let renewed = try RawClient.session(server, token: rotated)
        XCTAssertEqual(Authz.uuids(renewed.results(.querySamples(SampleQuery(types: [hr])))), [saved.uuid])
        XCTAssertEqual(renewed.call(.getAuthorizationStatus(types: [hr])), .authorizationStatus([TypeAuthorizationStatus(type: hr, status: .sharingAuthorized)]))
        XCTAssertEqual(renewed.call(.getRequestStatusForAuthorization(share: [hr], read: [hr])), .requestStatus(.unnecessary))
        XCTAssertEqual(renewed.call(.deleteObjects(.uuids([saved.uuid]))), .deleteObjects(deletedCount: 1))
        XCTAssertEqual(owner.call(.listPermissions(bundleID: band)), permissions)

        let old = try RawClient(port: server.port)
        XCTAssertEqual(old.hello(token)?.errorCode, .unauthenticated)
        XCTAssertNotNil(old.messagesUntilClosed())
    }

    func testEachRoleMayMakeOnlyItsOwnCalls() throws {
        let server = try ServerProcess()
        let operatorClient = try RawClient.session(server, token: server.operatorToken)
        XCTAssertNoThrow(try operatorClient.addOwner("second"))
        guard case .listOwners(let names)? = operatorClient.call(.listOwners) else { return XCTFail("no owners") }
        XCTAssertEqual(names.count, 2)
        XCTAssertTrue(names.contains("second"))
        for call in dataCalls + ownerCalls {
            XCTAssertEqual(operatorClient.call(call)?.errorCode, .permissionDenied, "operator: \(call)")
        }

        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = try RawClient.session(server, token: try owner.registerApp(band))
        for call in operatorCalls {
            XCTAssertEqual(owner.call(call)?.errorCode, .permissionDenied, "owner: \(call)")
        }
        for call in ownerCalls + operatorCalls + [.writeCharacteristics(Characteristics(biologicalSex: 1))] {
            XCTAssertEqual(app.call(call)?.errorCode, .permissionDenied, "app: \(call)")
        }
    }

    func testRequestAuthorizationFollowsHealthKitsRules() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = try RawClient.session(server, token: try owner.registerApp(band))
        let refused: [(share: [String], read: [String], named: String)] = [
            ([Authz.bloodPressure], [], Authz.bloodPressure),
            ([], [Authz.bloodPressure], Authz.bloodPressure),
            ([Authz.exerciseTime], [], Authz.exerciseTime),
            ([Authz.standHour], [], Authz.standHour),
            ([Authz.biologicalSex], [], Authz.biologicalSex),
            ([hr], ["HKQuantityTypeIdentifierNoSuchThing"], "HKQuantityTypeIdentifierNoSuchThing"),
        ]
        for (share, read, named) in refused {
            guard case .error(let error)? = app.call(.requestAuthorization(share: share, read: read)) else { return XCTFail("\(named) accepted") }
            XCTAssertEqual(error.code, .invalidArgument, named)
            XCTAssertTrue(error.message.contains(named), error.message)
        }
        XCTAssertEqual(app.call(.requestAuthorization(share: [], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.getRequestStatusForAuthorization(share: [], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.getAuthorizationStatus(types: []))?.errorCode, .invalidArgument)
        // A refused request records nothing, not even its valid part.
        XCTAssertEqual(owner.call(.listAuthorizationRequests(bundleID: nil, updates: false)), .authorizationRequests([]))

        // Apple-only types and characteristics may be read.
        let read = [Authz.exerciseTime, Authz.standHour, Authz.biologicalSex]
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: read)), .requestAuthorization)
        XCTAssertEqual(pending(owner), Set([hr + "/share"] + read.map { $0 + "/read" }))
        try owner.decide(band, [hr], .share, grant: true)
        try owner.decide(band, read, .read, grant: false)
        // Decided types need no new decision: asking again changes nothing.
        XCTAssertEqual(app.call(.getRequestStatusForAuthorization(share: [hr], read: read)), .requestStatus(.unnecessary))
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: read)), .requestAuthorization)
        XCTAssertEqual(pending(owner), [])
        XCTAssertEqual(app.call(.getAuthorizationStatus(types: [hr])), .authorizationStatus([TypeAuthorizationStatus(type: hr, status: .sharingAuthorized)]))
        // Only the new type of a request waits for the owner.
        XCTAssertEqual(app.call(.getRequestStatusForAuthorization(share: [hr, Authz.steps], read: [])), .requestStatus(.shouldRequest))
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr, Authz.steps], read: [])), .requestAuthorization)
        XCTAssertEqual(pending(owner), [Authz.steps + "/share"])
        // The owner cannot grant what may not be requested either.
        let bad = AuthorizationDecision(type: Authz.exerciseTime, direction: .share, grant: true)
        XCTAssertEqual(owner.call(.decideAuthorization(bundleID: band, decisions: [bad]))?.errorCode, .invalidArgument)
    }

    func testAllowAllAndDenyAllPoliciesDecideAtOnceAndTheOwnerCanChangeTheirDecisions() throws {
        for allow in [true, false] {
            let server = try ServerProcess(extraArguments: ["--authorization-policy", allow ? "allow-all" : "deny-all"])
            let owner = try RawClient.session(server, token: server.ownerToken)
            let others = Authz.quantity(hr, 100, "count/min", at: 0)
            try owner.save([others])
            let app = try RawClient.session(server, token: try owner.registerApp(band))
            XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: [hr])), .requestAuthorization)
            XCTAssertEqual(pending(owner), [])
            XCTAssertEqual(app.call(.getAuthorizationStatus(types: [hr])),
                           .authorizationStatus([TypeAuthorizationStatus(type: hr, status: allow ? .sharingAuthorized : .sharingDenied)]))
            let first = Authz.quantity(hr, 60, "count/min", at: 10)
            XCTAssertEqual(app.call(.saveObjects([first])), allow ? .saveObjects([.stored]) : .error(HealthError(
                .authorizationDenied, "'\(band)' is not authorized to share \(hr)", objectIndex: 0, field: "type")))
            XCTAssertEqual(Authz.uuids(app.results(.querySamples(SampleQuery(types: [hr])))), allow ? [others.uuid, first.uuid] : [])

            // The owner reverses both decisions.
            try owner.decide(band, [hr], .share, grant: !allow)
            try owner.decide(band, [hr], .read, grant: !allow)
            let second = Authz.quantity(hr, 61, "count/min", at: 20)
            XCTAssertEqual(app.call(.saveObjects([second]))?.errorCode, allow ? .authorizationDenied : nil)
            if allow {
                // Share revoked: the app can no longer delete what it saved, by UUID or by predicate.
                XCTAssertEqual(app.call(.deleteObjects(.uuids([first.uuid])))?.errorCode, .authorizationDenied)
                XCTAssertEqual(app.call(.deleteObjects(.matching(type: hr, predicate: nil)))?.errorCode, .authorizationDenied)
                XCTAssertEqual(Authz.uuids(app.results(.querySamples(SampleQuery(types: [hr])))), [first.uuid])
            } else {
                XCTAssertEqual(Authz.uuids(app.results(.querySamples(SampleQuery(types: [hr])))), [others.uuid, second.uuid])
                XCTAssertEqual(app.call(.deleteObjects(.uuids([second.uuid]))), .deleteObjects(deletedCount: 1))
            }
        }
    }

    // MARK: helpers

    /// Pending requests as "type/direction".
    private func pending(_ owner: RawClient) -> Set<String> {
        guard case .authorizationRequests(let requests)? = owner.call(.listAuthorizationRequests(bundleID: nil, updates: false)) else { return ["?"] }
        return Set(requests.map { "\($0.type)/\($0.direction == .share ? "share" : "read")" })
    }

    private var dataCalls: [ClientCall] {
        let sample = Authz.quantity(hr, 60, "count/min", at: 0)
        return [
            .requestAuthorization(share: [hr], read: [hr]), .getAuthorizationStatus(types: [hr]),
            .getRequestStatusForAuthorization(share: [hr], read: []), .saveObjects([sample]), .deleteObjects(.uuids([sample.uuid])),
            .deleteObjects(.matching(type: hr, predicate: nil)), .querySamples(SampleQuery(types: [hr])),
            .queryAnchored(AnchoredQuery(types: [hr])), .queryAnchored(AnchoredQuery(types: [hr], updates: true)),
            .queryStatistics(StatisticsQuery(type: hr, options: .discreteAverage)),
            .queryStatisticsCollection(StatisticsCollectionQuery(type: hr, options: .discreteMax, anchor: 0, interval: IntervalComponents(days: 1),
                                                                 from: 0, to: Authz.dayLength)),
            .queryCorrelations(CorrelationQuery(type: Authz.bloodPressure)), .querySources(type: hr, predicate: nil),
            .observe(types: [hr], predicate: nil, frequency: nil), .queryActivitySummaries(from: Authz.day, to: Authz.day, timeZone: nil),
            .queryDevices(type: nil), .readCharacteristics, .writeCharacteristics(Characteristics(biologicalSex: 1)),
        ]
    }

    private var ownerCalls: [ClientCall] {
        [.registerApp(bundleID: "com.example.other", name: "Other"), .listApps, .revokeApp(bundleID: band), .rotateAppToken(bundleID: band),
         .listAuthorizationRequests(bundleID: nil, updates: false), .listAuthorizationRequests(bundleID: nil, updates: true),
         .decideAuthorization(bundleID: band, decisions: [AuthorizationDecision(type: hr, direction: .read, grant: true)]),
         .listPermissions(bundleID: band), .setSourcePriority(type: hr, bundleIDs: [band]), .getSourcePriority(type: hr)]
    }

    private var operatorCalls: [ClientCall] {
        [.addOwner(name: "intruder"), .listOwners]
    }
}
