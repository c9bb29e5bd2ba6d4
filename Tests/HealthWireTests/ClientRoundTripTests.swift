import Foundation
import HealthModel
import XCTest
@testable import HealthWire

/// Every ClientCall survives encode → decode unchanged, framed and unframed.
final class ClientRoundTripTests: XCTestCase {
    private func assertRoundTrip(_ call: ClientCall, callID: UInt64 = 42, file: StaticString = #filePath, line: UInt = #line) {
        let message = ClientMessage(callID: callID, call: call)
        let payload = WireCodec.encodeClientMessage(message)
        XCTAssertEqual(try WireCodec.decodeClientMessage(payload), message, file: file, line: line)
        let frame = WireCodec.encodeClientFrame(message)
        XCTAssertEqual(frame, encodeFrame(payload), "framed encoding differs from prefix + payload", file: file, line: line)
    }

    func testSessionCalls() {
        assertRoundTrip(.hello(Hello(token: "tok-123", sourceRevision: Fixtures.revision, defaultDevice: Fixtures.watch)))
        assertRoundTrip(.hello(Hello(protocolVersion: 7, token: "", sourceRevision: nil, defaultDevice: nil)))
        assertRoundTrip(.hello(Hello(token: "t", sourceRevision: SourceRevision(source: Source(name: "", bundleID: "")),
                                     defaultDevice: Fixtures.partialDevice)))
        assertRoundTrip(.ping(Data([0, 1, 2, 255])))
        assertRoundTrip(.ping(Data()))
        assertRoundTrip(.cancel(targetCallID: UInt64.max))
        assertRoundTrip(.cancel(targetCallID: 0), callID: 0)
    }

    func testAuthorizationCalls() {
        assertRoundTrip(.requestAuthorization(share: ["HKQuantityTypeIdentifierHeartRate", "HKWorkoutTypeIdentifier"],
                                              read: ["HKCharacteristicTypeIdentifierDateOfBirth"]))
        assertRoundTrip(.requestAuthorization(share: [], read: []))
        assertRoundTrip(.getAuthorizationStatus(types: ["a", "b", "c"]))
        assertRoundTrip(.getRequestStatusForAuthorization(share: ["x"], read: ["y", "z"]))
    }

    func testSaveObjectsWithEveryKindOfSample() {
        assertRoundTrip(.saveObjects(Fixtures.allSamples))
        assertRoundTrip(.saveObjects([]))
        assertRoundTrip(.saveObjects(Fixtures.allSamples, keepSources: true))
    }

    func testDeleteObjects() {
        assertRoundTrip(.deleteObjects(.uuids([Fixtures.uuid(1), Fixtures.uuid(9)])))
        assertRoundTrip(.deleteObjects(.uuids([])))
        assertRoundTrip(.deleteObjects(.matching(type: "HKQuantityTypeIdentifierStepCount", predicate: nil)))
        assertRoundTrip(.deleteObjects(.matching(type: "HKQuantityTypeIdentifierStepCount", predicate: Fixtures.deepPredicate(depth: 5))))
    }

    func testEveryPredicateLeaf() {
        for leaf in Fixtures.leaves {
            assertRoundTrip(.querySamples(SampleQuery(types: ["t"], predicate: leaf)))
        }
    }

    func testDeepCompoundPredicates() {
        assertRoundTrip(.querySamples(SampleQuery(types: ["t"], predicate: .allOf(Fixtures.leaves))))
        assertRoundTrip(.querySamples(SampleQuery(types: ["t"], predicate: .anyOf([.not(.anyOf(Fixtures.leaves)), .allOf([])]))))
        assertRoundTrip(.querySamples(SampleQuery(types: ["t"], predicate: Fixtures.deepPredicate(depth: WireLimits.maxNestingDepth - 2))))
    }

    func testQueries() {
        assertRoundTrip(.querySamples(SampleQuery(types: ["a", "b"], predicate: Fixtures.leaves[0],
                                                  sort: [SampleSortDescriptor(.startDate, descending: true),
                                                         SampleSortDescriptor(.endDate), SampleSortDescriptor(.workoutDuration)],
                                                  limit: 500)))
        assertRoundTrip(.queryAnchored(AnchoredQuery(types: ["a"], predicate: .noCorrelation, anchor: Data([9, 8, 7]), limit: 10, updates: true)))
        assertRoundTrip(.queryAnchored(AnchoredQuery(types: [])))
        assertRoundTrip(.queryStatistics(StatisticsQuery(type: "HKQuantityTypeIdentifierStepCount", predicate: .sources(["a"]),
                                                         options: Fixtures.allOptions, unit: "count")))
        assertRoundTrip(.queryStatistics(StatisticsQuery(type: "t", options: [.cumulativeSum])))
        assertRoundTrip(.queryStatistics(StatisticsQuery(type: "t", options: [])))
        assertRoundTrip(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: "HKQuantityTypeIdentifierStepCount", predicate: Fixtures.leaves[3], options: [.cumulativeSum, .separateBySource],
            unit: "count", anchor: -3_600_000_000,
            interval: IntervalComponents(seconds: 1, minutes: 2, hours: 3, days: 4, weeks: 5, months: 6, years: 7),
            timeZone: "Europe/Berlin", calendar: "gregorian", from: 0, to: 86_400_000_000, updates: true)))
        assertRoundTrip(.queryStatisticsCollection(StatisticsCollectionQuery(
            type: "t", options: [.discreteMax], anchor: 0, interval: IntervalComponents(days: 1), from: 1, to: 2)))
        assertRoundTrip(.queryCorrelations(CorrelationQuery(
            type: "HKCorrelationTypeIdentifierBloodPressure", predicate: Fixtures.leaves[0],
            samplePredicates: [TypedPredicate(type: "HKQuantityTypeIdentifierBloodPressureSystolic",
                                              predicate: .quantity(.greaterThan, Quantity(140, "mmHg"))),
                               TypedPredicate(type: "HKQuantityTypeIdentifierBloodPressureDiastolic")])))
        assertRoundTrip(.querySources(type: "t", predicate: nil))
        assertRoundTrip(.querySources(type: "t", predicate: .metadataExists(key: "k")))
        assertRoundTrip(.observe(types: ["a", "b"], predicate: .workoutActivityType(1), frequency: .hourly))
        assertRoundTrip(.observe(types: ["a"], predicate: nil, frequency: nil))
        assertRoundTrip(.ackObserverEvent(targetCallID: 12, sequence: 3))
        assertRoundTrip(.queryActivitySummaries(from: CalendarDay(year: 2026, month: 1, day: 31),
                                                to: CalendarDay(year: 2026, month: 3, day: 1), timeZone: "America/New_York"))
        assertRoundTrip(.queryActivitySummaries(from: CalendarDay(year: 1, month: 1, day: 1), to: CalendarDay(year: 1, month: 1, day: 1),
                                                timeZone: nil))
        assertRoundTrip(.queryDevices(type: "HKQuantityTypeIdentifierHeartRate"))
        assertRoundTrip(.queryDevices(type: nil))
        assertRoundTrip(.countSamples(types: ["a", "b"], predicate: Fixtures.leaves[0]))
        assertRoundTrip(.countSamples(types: [], predicate: nil))
    }

    func testCharacteristicsCalls() {
        assertRoundTrip(.readCharacteristics)
        assertRoundTrip(.writeCharacteristics(Characteristics(biologicalSex: 2, bloodType: 8, dateOfBirth: CalendarDay(year: 1990, month: 12, day: 24),
                                                              fitzpatrickSkinType: 6, wheelchairUse: 1, activityMoveMode: 2)))
        assertRoundTrip(.writeCharacteristics(Characteristics()))
    }

    func testOwnerAndOperatorCalls() {
        assertRoundTrip(.registerApp(bundleID: "com.example.band", name: "Band ✓"))
        assertRoundTrip(.listApps)
        assertRoundTrip(.revokeApp(bundleID: "com.example.band"))
        assertRoundTrip(.rotateAppToken(bundleID: "com.example.band"))
        assertRoundTrip(.listAuthorizationRequests(bundleID: "com.example.band", updates: true))
        assertRoundTrip(.listAuthorizationRequests(bundleID: nil, updates: false))
        assertRoundTrip(.decideAuthorization(bundleID: "com.example.band",
                                             decisions: [AuthorizationDecision(type: "a", direction: .share, grant: true),
                                                         AuthorizationDecision(type: "b", direction: .read, grant: false)]))
        assertRoundTrip(.listPermissions(bundleID: "com.example.band"))
        assertRoundTrip(.setSourcePriority(type: "t", bundleIDs: ["b", "a", "c"]))
        assertRoundTrip(.getSourcePriority(type: "t"))
        assertRoundTrip(.addOwner(name: "Alice"))
        assertRoundTrip(.listOwners)
    }

    func testEmptyStringsAndEmptyDevicesReadAsNil() throws {
        let sample = Sample(uuid: Fixtures.uuid(1), type: "t", start: 0, end: 0, device: Device(), body: .category(0))
        let decoded = try WireCodec.decodeClientMessage(WireCodec.encodeClientMessage(ClientMessage(callID: 1, call: .saveObjects([sample]))))
        guard case .saveObjects(let samples, _) = decoded.call else { return XCTFail("wrong call \(decoded.call)") }
        XCTAssertNil(samples[0].device, "an all-empty device must read as nil")
        XCTAssertNil(samples[0].creationTime)
    }

    func testZeroQuantityCountReadsAsOne() throws {
        let sample = Sample(uuid: Fixtures.uuid(1), type: "t", start: 0, end: 0, body: .quantity(Quantity(1, "count"), count: 0))
        let decoded = try WireCodec.decodeClientMessage(WireCodec.encodeClientMessage(ClientMessage(callID: 1, call: .saveObjects([sample]))))
        guard case .saveObjects(let samples, _) = decoded.call, case .quantity(_, let count) = samples[0].body else {
            return XCTFail("wrong call \(decoded.call)")
        }
        XCTAssertEqual(count, 1)
    }

    func testDecodesFromSlicesAndData() throws {
        let message = ClientMessage(callID: 3, call: .saveObjects([Fixtures.run]))
        let frame = WireCodec.encodeClientFrame(message)
        XCTAssertEqual(try WireCodec.decodeClientMessage(frame[4...]), message)
        XCTAssertEqual(try WireCodec.decodeClientMessage(Data(frame.dropFirst(4))), message)
    }
}
