import Foundation
import HealthModel
import HealthWire
import XCTest

/// Identity and per-type authorization through a real server (docs/semantics.md §3).
final class AuthorizationTests: XCTestCase {
    private let hr = Fixtures.heartRate

    /// The owner's connection and an app's, on a fresh server.
    private func ownerAndApp(_ server: ServerProcess, bundleID: String = "com.example.band") throws -> (owner: RawClient, app: RawClient, token: String) {
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        guard case .appCredential(_, let token)? = owner.call(.registerApp(bundleID: bundleID, name: "Band")) else {
            throw TestFailure("RegisterApp failed")
        }
        let app = try RawClient(port: server.port)
        guard case .hello(let hello)? = app.hello(token) else { throw TestFailure("app Hello failed") }
        XCTAssertEqual(hello.source?.bundleID, bundleID)
        return (owner, app, token)
    }

    private func query(_ client: RawClient, _ type: String) -> [Sample] {
        Fixtures.samples(of: client.collect(client.submit(.querySamples(SampleQuery(types: [type])))))
    }

    func testShareStatesGateSavingAndReadStatesStayInvisible() throws {
        let server = try ServerProcess()
        let (owner, app, _) = try ownerAndApp(server)
        let ownerSample = Fixtures.heartRateSample(60)
        XCTAssertEqual(owner.call(.saveObjects([ownerSample])), .saveObjects([.stored]))

        // Not requested: saving is NOT_DETERMINED, reading shows nothing (no error).
        XCTAssertEqual(app.call(.saveObjects([Fixtures.heartRateSample(61)]))?.errorCode, .authorizationNotDetermined)
        XCTAssertEqual(query(app, hr), [])
        XCTAssertEqual(app.call(.getRequestStatusForAuthorization(share: [hr], read: [hr])), .requestStatus(.shouldRequest))

        // Requested, pending: still not determined.
        XCTAssertEqual(app.call(.requestAuthorization(share: [hr], read: [hr])), .requestAuthorization)
        XCTAssertEqual(app.call(.getRequestStatusForAuthorization(share: [hr], read: [hr])), .requestStatus(.unnecessary))
        XCTAssertEqual(app.call(.getAuthorizationStatus(types: [hr])), .authorizationStatus([TypeAuthorizationStatus(type: hr, status: .notDetermined)]))
        guard case .authorizationRequests(let pending)? = owner.call(.listAuthorizationRequests(bundleID: nil, updates: false)) else { return XCTFail() }
        XCTAssertEqual(Set(pending.map(\.direction)), [.share, .read])

        // Denied share: AUTHORIZATION_DENIED.
        XCTAssertEqual(owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [
            AuthorizationDecision(type: hr, direction: .share, grant: false),
            AuthorizationDecision(type: hr, direction: .read, grant: false),
        ])), .decideAuthorization(recorded: 2))
        XCTAssertEqual(app.call(.saveObjects([Fixtures.heartRateSample(62)]))?.errorCode, .authorizationDenied)
        XCTAssertEqual(app.call(.getAuthorizationStatus(types: [hr])), .authorizationStatus([TypeAuthorizationStatus(type: hr, status: .sharingDenied)]))

        // Granted share, denied read: saves work; reads return only the app's own samples.
        owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [AuthorizationDecision(type: hr, direction: .share, grant: true)]))
        let own = Fixtures.heartRateSample(63)
        XCTAssertEqual(app.call(.saveObjects([own])), .saveObjects([.stored]))
        XCTAssertEqual(query(app, hr).map(\.uuid), [own.uuid])
        guard case .sources(let sources)? = app.call(.querySources(type: hr, predicate: nil)) else { return XCTFail() }
        XCTAssertEqual(sources.map(\.bundleID), ["com.example.band"])

        // Granted read: everything.
        owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [AuthorizationDecision(type: hr, direction: .read, grant: true)]))
        XCTAssertEqual(Set(query(app, hr).map(\.uuid)), [own.uuid, ownerSample.uuid])
    }

    func testReadDeniedAnswersMatchAnEmptyStore() throws {
        // A read-denied app on a store full of others' data sees what a granted app sees on a
        // store holding only its own data.
        let answers = try [true, false].map { othersHaveData -> [ServerResult?] in
            let server = try ServerProcess(extraArguments: ["--authorization-policy", othersHaveData ? "deny-all" : "allow-all"])
            let (owner, app, _) = try ownerAndApp(server)
            if othersHaveData {
                owner.call(.saveObjects([Fixtures.heartRateSample(90), Fixtures.heartRateSample(91)]))
                owner.call(.writeCharacteristics(Characteristics(biologicalSex: 1, bloodType: 2)))
            }
            app.call(.requestAuthorization(share: [], read: [hr, "HKCharacteristicTypeIdentifierBiologicalSex"]))
            return [
                app.call(.querySamples(SampleQuery(types: [hr]))),
                app.call(.querySources(type: hr, predicate: nil)),
                app.call(.queryStatistics(StatisticsQuery(type: hr, options: .discreteAverage))),
                app.call(.readCharacteristics),
                app.call(.queryDevices(type: hr)),
            ]
        }
        XCTAssertEqual(answers[0], answers[1])
    }

    func testAppsDeleteOnlyTheirOwnObjectsWhileAllowedToShare() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let (owner, app, _) = try ownerAndApp(server)
        app.call(.requestAuthorization(share: [hr], read: [hr]))
        let ownerSample = Fixtures.heartRateSample(60), appSample = Fixtures.heartRateSample(61), kept = Fixtures.heartRateSample(62)
        owner.call(.saveObjects([ownerSample]))
        app.call(.saveObjects([appSample, kept]))
        XCTAssertEqual(app.call(.deleteObjects(.uuids([ownerSample.uuid])))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.deleteObjects(.uuids([appSample.uuid]))), .deleteObjects(deletedCount: 1))
        owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [AuthorizationDecision(type: hr, direction: .share, grant: false)]))
        XCTAssertEqual(app.call(.deleteObjects(.uuids([kept.uuid])))?.errorCode, .authorizationDenied)
        XCTAssertEqual(owner.call(.deleteObjects(.uuids([kept.uuid]))), .deleteObjects(deletedCount: 1))
    }

    func testRequestRulesAndRoles() throws {
        let server = try ServerProcess()
        let (_, app, _) = try ownerAndApp(server)
        XCTAssertEqual(app.call(.requestAuthorization(share: [], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.requestAuthorization(share: ["HKCorrelationTypeIdentifierBloodPressure"], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.requestAuthorization(share: [], read: ["HKCorrelationTypeIdentifierBloodPressure"]))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.requestAuthorization(share: ["HKCharacteristicTypeIdentifierBiologicalSex"], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.requestAuthorization(share: ["HKQuantityTypeIdentifierAppleExerciseTime"], read: []))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.registerApp(bundleID: "com.evil", name: "Evil"))?.errorCode, .permissionDenied)
        XCTAssertEqual(app.call(.writeCharacteristics(Characteristics(biologicalSex: 2)))?.errorCode, .permissionDenied)
        XCTAssertEqual(app.call(.addOwner(name: "x"))?.errorCode, .permissionDenied)

        let operatorClient = try RawClient(port: server.port)
        operatorClient.hello(server.operatorToken)
        XCTAssertEqual(operatorClient.call(.querySamples(SampleQuery(types: [hr])))?.errorCode, .permissionDenied)
        guard case .listOwners(let names)? = operatorClient.call(.listOwners) else { return XCTFail() }
        XCTAssertEqual(names.count, 1)
    }

    func testOwnersAreIsolated() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let operatorClient = try RawClient(port: server.port)
        operatorClient.hello(server.operatorToken)
        guard case .ownerCredential(_, let secondToken)? = operatorClient.call(.addOwner(name: "second")) else { return XCTFail() }

        let first = try RawClient(port: server.port)
        first.hello(server.ownerToken)
        let secret = Fixtures.heartRateSample(100)
        first.call(.saveObjects([secret]))

        let second = try RawClient(port: server.port)
        second.hello(secondToken)
        XCTAssertEqual(query(second, hr), [])
        guard case .appCredential(_, let appToken)? = second.call(.registerApp(bundleID: "com.example.band", name: "Band")) else { return XCTFail() }
        let app = try RawClient(port: server.port)
        app.hello(appToken)
        app.call(.requestAuthorization(share: [hr], read: [hr]))
        XCTAssertEqual(query(app, hr), [])
        XCTAssertEqual(app.call(.deleteObjects(.uuids([secret.uuid])))?.errorCode, .invalidArgument)
        XCTAssertEqual(query(first, hr).map(\.uuid), [secret.uuid])
    }

    func testRevokedAndRotatedTokens() throws {
        let server = try ServerProcess()
        let (owner, app, token) = try ownerAndApp(server)
        guard case .appCredential(_, let rotated)? = owner.call(.rotateAppToken(bundleID: "com.example.band")) else { return XCTFail() }
        // The old token's connection ends, the old token is refused, the new one works.
        XCTAssertEqual(try XCTUnwrap(app.messagesUntilClosed()).last?.result.errorCode, .unauthenticated)
        XCTAssertEqual(try RawClient(port: server.port).hello(token)?.errorCode, .unauthenticated)
        let renewed = try RawClient(port: server.port)
        guard case .hello? = renewed.hello(rotated) else { return XCTFail("rotated token refused") }

        guard case .revokeApp(let closed)? = owner.call(.revokeApp(bundleID: "com.example.band")) else { return XCTFail() }
        XCTAssertEqual(closed, 1)
        XCTAssertNotNil(renewed.messagesUntilClosed())
        XCTAssertEqual(try RawClient(port: server.port).hello(rotated)?.errorCode, .unauthenticated)
    }
}
