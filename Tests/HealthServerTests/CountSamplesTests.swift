import Foundation
import HealthModel
import HealthWire
import XCTest

/// CountSamples against a real healthd: the counts of what QuerySamples would send, per type, source
/// and device, with read denial as invisible as it is for the sample query.
final class CountSamplesTests: XCTestCase {
    private let app = "com.example.counter"
    private let watch = Device(name: "Watch", manufacturer: "Example")
    private let band = Device(name: "Band")

    /// A server whose owner saved heart rates and steps, and an app that shares heart rate but may not read it.
    private func readDeniedApp() throws -> (server: ServerProcess, owner: RawClient, client: RawClient) {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken, device: watch)
        let client = try RawClient.session(server, token: try owner.registerApp(app), device: band)
        let types = [Authz.heartRate, Authz.systolic, Authz.diastolic, Authz.steps]
        XCTAssertEqual(client.call(.requestAuthorization(share: types, read: types)), .requestAuthorization)
        try owner.decide(app, types, .share, grant: true)
        try owner.decide(app, [Authz.systolic], .read, grant: true)
        try owner.decide(app, [Authz.heartRate, Authz.diastolic, Authz.steps], .read, grant: false)
        try owner.save([Authz.quantity(Authz.heartRate, 60, "count/min", at: 0), Authz.quantity(Authz.heartRate, 61, "count/min", at: 1),
                        Authz.quantity(Authz.heartRate, 62, "count/min", at: 2, device: band),
                        Authz.quantity(Authz.steps, 100, "count", at: 3)])
        return (server, owner, client)
    }

    /// Counts of the samples QuerySamples sends to `client`, grouped the way CountSamples groups them.
    private func downloaded(_ client: RawClient, _ types: [String], _ predicate: QueryPredicate? = nil) throws -> Set<SampleCount> {
        var groups: [SampleCount: UInt64] = [:]
        for sample in Fixtures.samples(of: client.results(.querySamples(SampleQuery(types: types, predicate: predicate)))) {
            let source = try XCTUnwrap(sample.sourceRevision?.source)
            groups[SampleCount(type: sample.type, source: source, device: sample.device, count: 0), default: 0] += 1
        }
        return Set(groups.map { SampleCount(type: $0.key.type, source: $0.key.source, device: $0.key.device, count: $0.value) })
    }

    private func counts(_ client: RawClient, _ types: [String], _ predicate: QueryPredicate? = nil) throws -> [SampleCount] {
        let answer = client.call(.countSamples(types: types, predicate: predicate))
        guard case .sampleCounts(let counts)? = answer else { throw TestFailure("CountSamples answered \(String(describing: answer))") }
        return counts
    }

    func testOwnerCountsEverySamplePerTypeSourceAndDevice() throws {
        let (server, owner, client) = try readDeniedApp()
        defer { withExtendedLifetime(server) {} }
        try client.save([Authz.quantity(Authz.heartRate, 70, "count/min", at: 4)])
        let health = Source(name: "Health", bundleID: "com.apple.Health"), counter = Source(name: app, bundleID: app)
        XCTAssertEqual(Set(try counts(owner, [Authz.heartRate, Authz.steps])), [
            SampleCount(type: Authz.heartRate, source: health, device: watch, count: 2),
            SampleCount(type: Authz.heartRate, source: health, device: band, count: 1),
            SampleCount(type: Authz.heartRate, source: counter, device: band, count: 1),
            SampleCount(type: Authz.steps, source: health, device: watch, count: 1),
        ])
        let morning = QueryPredicate.dateRange(DateRange(start: Authz.midnight + Authz.hour + 2 * Authz.minute, end: nil))
        for predicate in [nil, morning] {
            XCTAssertEqual(Set(try counts(owner, [Authz.heartRate, Authz.steps], predicate)),
                           try downloaded(owner, [Authz.heartRate, Authz.steps], predicate))
        }
    }

    func testReadDeniedAppCountsOnlyItsOwnData() throws {
        let (server, _, client) = try readDeniedApp()
        defer { withExtendedLifetime(server) {} }
        XCTAssertEqual(try counts(client, [Authz.heartRate]), [], "denial looks like an empty store")
        try client.save([Authz.quantity(Authz.heartRate, 70, "count/min", at: 4), Authz.quantity(Authz.heartRate, 71, "count/min", at: 5)])
        XCTAssertEqual(try counts(client, [Authz.heartRate]),
                       [SampleCount(type: Authz.heartRate, source: Source(name: app, bundleID: app), device: band, count: 2)])
        XCTAssertEqual(Set(try counts(client, [Authz.heartRate, Authz.steps])), try downloaded(client, [Authz.heartRate, Authz.steps]))
    }

    func testCorrelationsCountOnlyWhereAReadingIsReadable() throws {
        let (server, owner, client) = try readDeniedApp()
        defer { withExtendedLifetime(server) {} }
        try owner.save([Authz.bloodPressure(systolic: nil, diastolic: (UUID(), 80), at: 10),
                        Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 11)])
        let types = [Authz.bloodPressure, Authz.systolic, Authz.diastolic]
        XCTAssertEqual(try counts(client, types).map { "\($0.type) \($0.count)" }, ["\(Authz.bloodPressure) 1", "\(Authz.systolic) 1"])
        XCTAssertEqual(Set(try counts(client, types)), try downloaded(client, types))
        XCTAssertEqual(try counts(owner, types).map(\.count), [2, 2, 1])
    }

    func testTypesAreCheckedLikeTheSampleQuery() throws {
        let (server, owner, _) = try readDeniedApp()
        defer { withExtendedLifetime(server) {} }
        for types in [[], [Authz.biologicalSex], ["HKQuantityTypeIdentifierNoSuchThing"]] {
            guard case .error(let error)? = owner.call(.countSamples(types: types, predicate: nil)) else {
                return XCTFail("CountSamples of \(types) must fail")
            }
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertEqual(error.field, "types")
        }
        guard case .error(let error)? = owner.call(.countSamples(types: [Authz.steps], predicate: .categoryValue(.equal, 1))) else {
            return XCTFail("a category predicate on a quantity type must fail")
        }
        XCTAssertEqual(error.code, .invalidArgument)
    }
}
