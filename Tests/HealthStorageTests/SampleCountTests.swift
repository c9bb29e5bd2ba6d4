import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// `countSamples` counts exactly what `querySamples` with the same arguments returns, grouped by type,
/// source and device, under every read scope.
final class SampleCountTests: StoreTestCase {
    private static let band = Device(name: "Band")
    private static let scaleDevice = Device(name: "Scale", manufacturer: "Example")

    private static func reading(_ type: String, _ value: Double, at second: Int64) -> Sample {
        Sample(type: type, start: s(second), end: s(second), body: .quantity(Quantity(value, "mmHg"), count: 1))
    }

    private static func bloodPressure(systolic: Double?, diastolic: Double, at second: Int64) -> Sample {
        var readings = [reading(StoreFixture.diastolic, diastolic, at: second)]
        if let systolic { readings.append(reading(StoreFixture.systolic, systolic, at: second)) }
        return Sample(type: StoreFixture.bloodPressure, start: s(second), end: s(second), device: scaleDevice, body: .correlation(readings))
    }

    private static let everyType = [StoreFixture.heartRate, StoreFixture.steps, StoreFixture.sleep, StoreFixture.bloodPressure,
                                    StoreFixture.systolic, StoreFixture.diastolic]

    /// The watch saved heart rates (with its default device, a band, and no device) and steps; the
    /// scale saved heart rates, a sleep sample and blood pressure, one correlation without a systolic reading.
    private func fixture() async throws -> StoreFixture {
        let f = try await StoreFixture()
        let steps = Sample(type: StoreFixture.steps, start: s(0), end: s(60), body: .quantity(Quantity(10, "count"), count: 1))
        try await f.save([StoreFixture.heartRate(s(1)), StoreFixture.heartRate(s(2)), StoreFixture.heartRate(s(3), device: Self.band), steps])
        _ = try await f.store.save(f.batch([StoreFixture.heartRate(s(4))], device: nil))
        try await f.save([StoreFixture.heartRate(s(5), device: Self.scaleDevice), StoreFixture.heartRate(s(6), device: Self.scaleDevice),
                          StoreFixture.sleep(s(0), s(3600), value: 1),
                          Self.bloodPressure(systolic: nil, diastolic: 80, at: 7), Self.bloodPressure(systolic: 120, diastolic: 80, at: 8)],
                         source: StoreFixture.scale)
        return f
    }

    /// What a client would get by downloading every sample and counting.
    private func counted(_ f: StoreFixture, _ predicate: QueryPredicate?, _ scope: ReadScope) async throws -> Set<SampleCount> {
        var groups: [SampleCount: UInt64] = [:]
        for sample in try await f.query(Self.everyType, predicate, scope: scope) {
            let key = SampleCount(type: sample.type, source: try XCTUnwrap(sample.sourceRevision?.source), device: sample.device, count: 0)
            groups[key, default: 0] += 1
        }
        return Set(groups.map { SampleCount(type: $0.key.type, source: $0.key.source, device: $0.key.device, count: $0.value) })
    }

    func testCountsPerTypeSourceAndDevice() async throws {
        try await forEachEngine {
            let f = try await fixture()
            let counts = try await f.store.countSamples(owner: f.owner, types: [StoreFixture.heartRate, StoreFixture.steps], predicate: nil,
                                                        scope: .everything(callerBundleID: Principal.healthApp.bundleID))
            let heartRates = counts.filter { $0.type == StoreFixture.heartRate }
            XCTAssertEqual(heartRates.map(\.source.bundleID), ["com.example.scale", "com.example.watch", "com.example.watch", "com.example.watch"],
                           "ordered by type, then bundle id")
            XCTAssertEqual(Set(heartRates.map { "\($0.source.bundleID) \($0.device?.name ?? "-") \($0.count)" }),
                           ["com.example.scale Scale 2", "com.example.watch Watch 2", "com.example.watch Band 1", "com.example.watch - 1"])
            XCTAssertEqual(counts.filter { $0.type == StoreFixture.steps }.map(\.count), [1])
            XCTAssertEqual(counts.first?.source, StoreFixture.scale, "sources carry their names")
            await f.store.close()
        }
    }

    func testCountsMatchTheSampleQueryForEveryScopeAndPredicate() async throws {
        try await forEachEngine {
            let f = try await fixture()
            let caller = StoreFixture.watch.bundleID
            let scopes = [ReadScope.everything(callerBundleID: Principal.healthApp.bundleID),
                          ReadScope(callerBundleID: caller, readableTypes: []),
                          ReadScope(callerBundleID: caller, readableTypes: [StoreFixture.heartRate]),
                          ReadScope(callerBundleID: caller, readableTypes: [StoreFixture.systolic]),
                          ReadScope(callerBundleID: "com.example.never-saved", readableTypes: [StoreFixture.diastolic])]
            let predicates: [QueryPredicate?] = [nil, .dateRange(DateRange(start: s(2), end: s(6))), .devices([Self.scaleDevice]),
                                                 .not(.sources([caller])), .noCorrelation]
            for scope in scopes {
                for predicate in predicates {
                    let counts = try await f.store.countSamples(owner: f.owner, types: Self.everyType, predicate: predicate, scope: scope)
                    let expected = try await counted(f, predicate, scope)
                    XCTAssertEqual(Set(counts), expected, "scope \(scope), predicate \(String(describing: predicate))")
                    XCTAssertEqual(counts.count, expected.count, "one row per group")
                }
            }
            await f.store.close()
        }
    }

    func testReadRestrictedCallerCountsOnlyWhatItCouldRead() async throws {
        try await forEachEngine {
            let f = try await fixture()
            let own = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [])
            let counts = try await f.store.countSamples(owner: f.owner, types: Self.everyType, predicate: nil, scope: own)
            XCTAssertEqual(Set(counts.map(\.source)), [StoreFixture.watch])
            XCTAssertEqual(counts.reduce(0) { $0 + $1.count }, 5)
            // Systolic readers see only the correlation holding a systolic reading.
            let systolic = ReadScope(callerBundleID: StoreFixture.watch.bundleID, readableTypes: [StoreFixture.systolic])
            let pressure = try await f.store.countSamples(owner: f.owner, types: [StoreFixture.bloodPressure, StoreFixture.diastolic],
                                                          predicate: nil, scope: systolic)
            XCTAssertEqual(pressure.map { "\($0.type) \($0.count)" }, ["\(StoreFixture.bloodPressure) 1"])
            await f.store.close()
        }
    }

    func testOtherOwnersAndUnstoredTypesCountNothing() async throws {
        try await forEachEngine {
            let f = try await fixture()
            let other = try await f.store.addOwner(name: "bob").0
            let everything = ReadScope.everything(callerBundleID: Principal.healthApp.bundleID)
            try await expect(await f.store.countSamples(owner: other, types: Self.everyType, predicate: nil, scope: everything), [])
            try await expect(await f.store.countSamples(owner: f.owner, types: ["HKQuantityTypeIdentifierBodyMass"], predicate: nil,
                                                        scope: everything), [])
            do {
                _ = try await f.store.countSamples(owner: f.owner, types: ["HKCharacteristicTypeIdentifierBloodType"], predicate: nil, scope: everything)
                XCTFail("a characteristic type is not a sample type")
            } catch let error as HealthError {
                XCTAssertEqual(error.code, .invalidArgument)
            }
            await f.store.close()
        }
    }
}
