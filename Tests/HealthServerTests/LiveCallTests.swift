import Foundation
import HealthModel
import HealthWire
import XCTest

/// Long-running calls, paging, correlations and batch limits through a real server.
final class LiveCallTests: XCTestCase {
    private let hr = Fixtures.heartRate

    func testAnchoredUpdatesObserverAndCollectionFollowSaves() throws {
        let server = try ServerProcess()
        let watcher = try RawClient(port: server.port)
        watcher.hello(server.ownerToken)
        let live = try LiveHeartRateCalls(on: watcher)
        XCTAssertTrue(live.initialBuckets.allSatisfy { $0.maximum == nil })

        let writer = try RawClient(port: server.port)
        writer.hello(server.ownerToken)
        // Half past the previous hour: one bucket of the collection, however near the hour it runs.
        let minutesIntoHour = Int(Time.now() % 3_600_000_000 / 60_000_000)
        let sample = Fixtures.heartRateSample(150, minutesAgo: minutesIntoHour + 30)
        writer.call(.saveObjects([sample]))

        let updates = try live.updates(on: watcher)
        XCTAssertEqual(updates.added, [sample.uuid])
        XCTAssertEqual(updates.event, .observerEvent(changedTypes: [hr], sequence: 1))
        XCTAssertEqual(updates.changed.count, 1)
        XCTAssertEqual(try XCTUnwrap(updates.changed.first?.maximum).value(in: "count/min"), 150, accuracy: 1e-9)

        XCTAssertEqual(watcher.call(.cancel(targetCallID: live.anchored)), .cancel(cancelled: true))
        XCTAssertEqual(watcher.receive(callID: live.anchored)?.result, .callEnded(.cancelled))
    }

    func testObserverOfReadDeniedAppHearsOnlyItsOwnChanges() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        guard case .appCredential(_, let token)? = owner.call(.registerApp(bundleID: "com.example.band", name: "Band")) else { return XCTFail() }
        let app = try RawClient(port: server.port)
        app.hello(token)
        app.call(.requestAuthorization(share: [hr], read: [hr]))
        owner.call(.decideAuthorization(bundleID: "com.example.band", decisions: [AuthorizationDecision(type: hr, direction: .read, grant: false)]))
        let observer = app.submit(.observe(types: [hr], predicate: nil, frequency: nil))
        XCTAssertEqual(app.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        owner.call(.saveObjects([Fixtures.heartRateSample(70)]))
        app.call(.saveObjects([Fixtures.heartRateSample(71)]))
        // The owner's save stays silent; the first event is the app's own save.
        XCTAssertEqual(app.nextEvent(observer)?.result, .observerEvent(changedTypes: [hr], sequence: 1))
        app.call(.cancel(targetCallID: observer))
        XCTAssertEqual(app.receive(callID: observer)?.result, .callEnded(.cancelled))
    }

    func testAuthorizationRequestsAreStreamedToTheOwner() throws {
        let server = try ServerProcess()
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        guard case .appCredential(_, let token)? = owner.call(.registerApp(bundleID: "com.example.band", name: "Band")) else { return XCTFail() }
        let live = owner.submit(.listAuthorizationRequests(bundleID: nil, updates: true))
        XCTAssertEqual(owner.receive(callID: live)?.result, .authorizationRequests([]))
        let app = try RawClient(port: server.port)
        app.hello(token)
        app.call(.requestAuthorization(share: [hr], read: []))
        guard case .authorizationRequests(let pending)? = owner.receive(callID: live)?.result else { return XCTFail() }
        XCTAssertEqual(pending.map(\.type), [hr])
        XCTAssertEqual(pending.first?.app.bundleID, "com.example.band")
    }

    func testLargeAnswersArePagedAndBatchesAreLimited() throws {
        let server = try ServerProcess()
        let client = try RawClient(port: server.port)
        guard case .hello(let hello)? = client.hello(server.ownerToken) else { return XCTFail() }
        let tooMany = (0...Int(hello.maxBatchObjects)).map { _ in Fixtures.heartRateSample(60) }
        XCTAssertEqual(client.call(.saveObjects(tooMany))?.errorCode, .dataSizeExceeded)
        XCTAssertEqual(client.call(.saveObjects([]))?.errorCode, .invalidArgument)

        let batch = (0..<3000).map { _ in Fixtures.heartRateSample(60) }
        guard case .saveObjects(let outcomes)? = client.call(.saveObjects(batch)) else { return XCTFail() }
        XCTAssertEqual(outcomes.count, 3000)
        let pages = client.collect(client.submit(.querySamples(SampleQuery(types: [hr]))))
        XCTAssertGreaterThan(pages.count, 1)
        XCTAssertEqual(Set(Fixtures.samples(of: pages).map(\.uuid)), Set(batch.map(\.uuid)))
    }

    func testCorrelationChildrenFollowReadPermission() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient(port: server.port)
        owner.hello(server.ownerToken)
        let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
        let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
        let t = Time.now() - 60_000_000
        let pressure = Sample(type: "HKCorrelationTypeIdentifierBloodPressure", start: t, end: t, body: .correlation([
            Sample(type: systolic, start: t, end: t, body: .quantity(Quantity(120, "mmHg"), count: 1)),
            Sample(type: diastolic, start: t, end: t, body: .quantity(Quantity(80, "mmHg"), count: 1)),
        ]))
        XCTAssertEqual(owner.call(.saveObjects([pressure])), .saveObjects([.stored]))
        guard case .appCredential(_, let token)? = owner.call(.registerApp(bundleID: "com.example.cuff", name: "Cuff")) else { return XCTFail() }
        let app = try RawClient(port: server.port)
        app.hello(token)
        app.call(.requestAuthorization(share: [], read: [systolic]))
        guard case .correlations(let seen)? = app.call(.queryCorrelations(CorrelationQuery(type: "HKCorrelationTypeIdentifierBloodPressure"))) else {
            return XCTFail()
        }
        XCTAssertEqual(seen.map(\.uuid), [pressure.uuid])
        XCTAssertEqual(seen.first?.correlationObjects?.map(\.type), [systolic])
        // Saving a correlation needs share permission for every contained type.
        XCTAssertEqual(app.call(.saveObjects([pressure]))?.errorCode, .authorizationNotDetermined)
    }
}
