import Foundation
import HealthModel
import HealthWire
import XCTest

/// A connection's SaveObjects is answered on its loop, without a task, once the app's permission
/// states are cached (always for the owner); the first call after a permission change reads them
/// through a task. Both ways give the same answers.
final class LoopSaveTests: XCTestCase {
    private let app = "com.example.loopsave"

    /// An app granted share for heart rate and denied steps, with body mass never asked about.
    private func appSession(_ server: ServerProcess) throws -> (owner: RawClient, app: RawClient) {
        let owner = try RawClient.session(server, token: server.ownerToken)
        let token = try owner.registerApp(app)
        try owner.decide(app, [Authz.heartRate], .share, grant: true)
        try owner.decide(app, [Authz.steps], .share, grant: false)
        return (owner, try RawClient.session(server, token: token))
    }

    /// Drops the server's cached states of the app: the owner records a decision again.
    private func forgetStates(_ owner: RawClient) throws {
        try owner.decide(app, [Authz.heartRate], .share, grant: true)
    }

    func testAnswersWithCachedStatesEqualThoseAfterReadingThemFromTheStore() throws {
        let server = try ServerProcess()
        let (owner, app) = try appSession(server)
        let ownersSample = Authz.quantity(Authz.heartRate, 70, "count/min", at: 1)
        try owner.save([ownersSample])
        let good = Authz.quantity(Authz.heartRate, 71, "count/min", at: 2)
        let batches: [(String, [Sample])] = [
            ("unknown type", [Sample(type: "HKQuantityTypeIdentifierNope", start: good.start, end: good.end,
                                     body: .quantity(Quantity(1, "count"), count: 1))]),
            ("share denied", [good, Authz.quantity(Authz.steps, 10, "count", at: 3)]),
            ("never asked", [Authz.quantity(Authz.bodyMass, 70, "kg", at: 4)]),
            ("unit of another dimension", [Authz.quantity(Authz.heartRate, 70, "kg", at: 5)]),
            ("empty batch", []),
            ("UUID of another source", [Authz.quantity(Authz.heartRate, 72, "count/min", at: 6, uuid: ownersSample.uuid)]),
            ("correlation with a denied reading", [Authz.bloodPressure(systolic: (UUID(), 120), diastolic: nil, at: 7)]),
        ]
        for (name, objects) in batches {
            try forgetStates(owner)
            let throughTask = app.call(.saveObjects(objects))
            let onLoop = app.call(.saveObjects(objects))
            guard case .error? = throughTask else { return XCTFail("\(name): saved: \(String(describing: throughTask))") }
            XCTAssertEqual(onLoop, throughTask, name)
        }
        try forgetStates(owner)
        XCTAssertEqual(app.call(.saveObjects([good])), .saveObjects([.stored]))
        XCTAssertEqual(app.call(.saveObjects([good])), .saveObjects([.alreadyStored]))
        // Nothing of a refused batch was stored: the app reads its own samples only.
        let own = Fixtures.samples(of: app.results(.querySamples(SampleQuery(types: [Authz.heartRate]))))
        XCTAssertEqual(own.map(\.uuid), [good.uuid])
    }

    func testAPermissionChangeAppliesToTheNextSave() throws {
        let server = try ServerProcess()
        let (owner, app) = try appSession(server)
        try app.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 1)])
        try app.save([Authz.quantity(Authz.heartRate, 61, "count/min", at: 2)])
        try owner.decide(self.app, [Authz.heartRate], .share, grant: false)
        for minute in Int64(3)...4 {
            guard case .error(let error)? = app.call(.saveObjects([Authz.quantity(Authz.heartRate, 62, "count/min", at: minute)])) else {
                return XCTFail("saved after the owner denied sharing")
            }
            XCTAssertEqual(error.code, .authorizationDenied)
            XCTAssertEqual(error.objectIndex, 0)
        }
        try owner.decide(self.app, [Authz.heartRate], .share, grant: true)
        try app.save([Authz.quantity(Authz.heartRate, 63, "count/min", at: 5)])
    }

    // A connection remembers the type its last lone sample was found to share, until any app's permissions
    // change: it spares only that type's look-up, and a change anywhere has the next save look again.
    func testTheTypeLastFoundSharedLetsOnlyItselfThrough() throws {
        let server = try ServerProcess()
        let (owner, app) = try appSession(server)
        let heartRate = { (minute: Int64) in Authz.quantity(Authz.heartRate, 60, "count/min", at: minute) }
        for minute in Int64(1)...3 { try app.save([heartRate(minute)]) }
        let refused: [(Sample, HealthErrorCode)] = [(Authz.quantity(Authz.steps, 10, "count", at: 4), .authorizationDenied),
                                                    (Authz.quantity(Authz.bodyMass, 70, "kg", at: 5), .authorizationNotDetermined)]
        for (sample, code) in refused {
            for objects in [[sample], [heartRate(6), sample]] {
                guard case .error(let error)? = app.call(.saveObjects(objects)) else { return XCTFail("saved \(sample.type)") }
                XCTAssertEqual(error.code, code, sample.type)
                XCTAssertEqual(error.objectIndex, objects.count - 1, sample.type)
            }
        }
        try app.save([heartRate(7)])
        // Another app's decision moves the book's generation: the states are found again, and still share.
        let other = "com.example.other"
        _ = try owner.registerApp(other)
        try owner.decide(other, [Authz.heartRate], .share, grant: true)
        for minute in Int64(8)...9 { try app.save([heartRate(minute)]) }
        try owner.decide(self.app, [Authz.heartRate], .share, grant: false)
        for minute in Int64(10)...11 {
            guard case .error(let error)? = app.call(.saveObjects([heartRate(minute)])) else { return XCTFail("saved after the owner denied sharing") }
            XCTAssertEqual(error.code, .authorizationDenied)
        }
    }

    func testTheOperatorCannotSave() throws {
        let server = try ServerProcess()
        let client = try RawClient.session(server, token: server.operatorToken)
        guard case .error(let error)? = client.call(.saveObjects([Fixtures.heartRateSample(60)])) else { return XCTFail("operator saved") }
        XCTAssertEqual(error.code, .permissionDenied)
    }

    func testPipelinedSavesAreEachAnsweredOnceAndACancelledOneEndsAsCancelledOrAnswered() throws {
        let server = try ServerProcess()
        let client = try RawClient.session(server, token: server.ownerToken)
        let samples = (0..<50).map { Authz.quantity(Authz.heartRate, 60, "count/min", at: Int64($0)) }
        let calls = samples.map { client.submit(.saveObjects([$0])) }
        let cancel = client.submit(.cancel(targetCallID: calls[49]))
        for call in calls.dropLast() { XCTAssertEqual(client.collect(call), [.saveObjects([.stored])]) }
        let last = client.collect(calls[49])
        guard case .cancel(let cancelled)? = client.receive(callID: cancel)?.result else { return XCTFail("Cancel was not answered") }
        XCTAssertEqual(last, [cancelled ? .callEnded(.cancelled) : .saveObjects([.stored])])
        // The connection carries on, and the cancelled save's answer never arrives after its end.
        XCTAssertEqual(client.call(.saveObjects([Authz.quantity(Authz.heartRate, 60, "count/min", at: 60)])), .saveObjects([.stored]))
    }
}
