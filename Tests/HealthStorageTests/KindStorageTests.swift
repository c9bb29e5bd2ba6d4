import Foundation
import HealthModel
@testable import HealthStorage
import XCTest

/// Electrocardiograms, audiograms, states of mind and scored assessments are stored with their bodies
/// (an ECG's voltages packed in series_chunks under its UUID), read back, reported by anchored queries,
/// retried idempotently, and deleted with their detail rows and voltages, leaving tombstones.
final class KindStorageTests: StoreTestCase {
    static let ecgType = "HKDataTypeIdentifierElectrocardiogram"
    static let kindTypes = [ecgType, "HKDataTypeIdentifierAudiogram", "HKDataTypeIdentifierStateOfMind",
                            ScoredAssessment.gad7Type, ScoredAssessment.phq9Type]

    static let voltages = (0..<2_500).map { i in
        VoltageMeasurement(offset: Int64((Double(i) * 1e6 / 512).rounded()), microvolts: Double(i % 50) * 3.25 - 60).onGrid
    }

    static func samples() -> [Sample] {
        let ecg = Electrocardiogram(classification: 1, symptomsStatus: 2, averageHeartRate: Quantity(71, "count/min"),
                                    samplingFrequency: Quantity(512, "Hz"), voltages: voltages)
        let audiogram = Audiogram(points: [
            AudiogramSensitivityPoint(frequency: Quantity(500, "Hz"), tests: [
                AudiogramSensitivityTest(sensitivity: Quantity(15, "dBHL"), side: 0),
                AudiogramSensitivityTest(sensitivity: Quantity(20, "dBHL"), masked: true, side: 1,
                                         clampingLowerBound: Quantity(0, "dBHL"), clampingUpperBound: nil),
            ]),
            AudiogramSensitivityPoint(frequency: Quantity(4000, "Hz"), tests: [AudiogramSensitivityTest(sensitivity: Quantity(35, "dBHL"), side: 1)]),
        ])
        return [
            Sample(type: ecgType, start: s(100), end: s(130), body: .electrocardiogram(ecg)),
            Sample(type: kindTypes[1], start: s(200), end: s(500), body: .audiogram(audiogram)),
            Sample(type: kindTypes[2], start: s(600), end: s(600),
                   body: .stateOfMind(StateOfMind(kind: 2, valence: -0.35, labels: [29, 34], associations: [17]))),
            Sample(type: kindTypes[3], start: s(700), end: s(700), body: .scoredAssessment(ScoredAssessment(answers: [1, 2, 1, 0, 3, 1, 2]))),
            Sample(type: kindTypes[4], start: s(800), end: s(800),
                   body: .scoredAssessment(ScoredAssessment(answers: [0, 1, 0, 1, 0, 1, 0, 1, ScoredAssessment.preferNotToAnswer]))),
        ]
    }

    /// What the store returns for a saved sample: an ECG without its voltages.
    static func asRead(_ s: Sample) -> Sample {
        guard case .electrocardiogram(let e) = s.body else { return s }
        return Sample(uuid: s.uuid, type: s.type, start: s.start, end: s.end, metadata: s.metadata, device: s.device,
                      sourceRevision: s.sourceRevision, creationTime: s.creationTime, body: .electrocardiogram(e.asSaved))
    }

    func testEveryKindRoundTripsAndTheVoltagesStreamBack() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let saved = Self.samples()
            try await expect(await f.save(saved), Array(repeating: .stored, count: saved.count))
            let read = try await f.query(Self.kindTypes, sort: [SampleSortDescriptor(.startDate)])
            XCTAssertEqual(read.map { $0.body }, saved.map { Self.asRead($0).body })
            guard case .electrocardiogram(let ecg) = read[0].body else { return XCTFail("no ECG") }
            XCTAssertEqual(ecg.numberOfVoltageMeasurements, Int64(Self.voltages.count))
            XCTAssertEqual(ecg.voltages, [])
            var streamed: [VoltageMeasurement] = []
            while true {
                let page: [VoltageMeasurement] = try await f.store.seriesPoints(owner: f.owner, series: saved[0].uuid, from: streamed.count, limit: 1_000)
                if page.isEmpty { break }
                streamed += page
            }
            XCTAssertEqual(streamed, Self.voltages)
            let packed = try await f.store.seriesPackedBytes()
            XCTAssertLessThanOrEqual(packed, Int64(4 * Self.voltages.count))
            // A retry with the same content is already stored; different content is refused.
            try await expect(await f.save(saved), Array(repeating: .alreadyStored, count: saved.count))
            let changed = Sample(uuid: saved[2].uuid, type: saved[2].type, start: saved[2].start, end: saved[2].end,
                                 body: .stateOfMind(StateOfMind(kind: 2, valence: 0.9)))
            do {
                try await f.save([changed])
                XCTFail("different content under a stored UUID was accepted")
            } catch let error as HealthError {
                XCTAssertEqual(error.field, "uuid")
            }
            await f.store.close()
        }
    }

    func testDeletingRemovesDetailsAndVoltagesAndLeavesTombstones() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let saved = Self.samples()
            try await f.save(saved)
            let anchor = try await f.anchor()
            let deleter = Deleter(owner: f.owner, bundleID: StoreFixture.watch.bundleID, isOwner: false)
            try await expect(await f.store.deleteObjects(uuids: saved.map(\.uuid), by: deleter), saved.count)
            try await expect(await f.query(Self.kindTypes), [])
            XCTAssertEqual(try f.count("sample_details"), 0)
            XCTAssertEqual(try f.count("series_chunks"), 0)
            let changes = try await f.store.queryAnchored(owner: f.owner, types: Self.kindTypes, predicate: nil, anchor: anchor, limit: 0,
                                                          scope: .everything(callerBundleID: Principal.healthApp.bundleID))
            XCTAssertEqual(Set(changes.deleted.map(\.uuid)), Set(saved.map(\.uuid)))
            await f.store.close()
        }
    }

    func testAnchoredQueriesReportEveryKind() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let anchor = try await f.anchor()
            let saved = Self.samples()
            try await f.save(saved)
            let changes = try await f.store.queryAnchored(owner: f.owner, types: Self.kindTypes, predicate: nil, anchor: anchor, limit: 0,
                                                          scope: .everything(callerBundleID: Principal.healthApp.bundleID))
            XCTAssertEqual(Set(changes.samples.map(\.body)), Set(saved.map { Self.asRead($0).body }))
            await f.store.close()
        }
    }

    func testAnECGsCountIsThatOfItsStoredVoltages() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            let claimed = Sample(type: Self.ecgType, start: s(1), end: s(31),
                                 body: .electrocardiogram(Electrocardiogram(samplingFrequency: Quantity(512, "Hz"), numberOfVoltageMeasurements: 15_360)))
            try await f.save([claimed])
            guard case .electrocardiogram(let read)? = try await f.query([Self.ecgType]).first?.body else { return XCTFail("no ECG") }
            XCTAssertEqual(read.numberOfVoltageMeasurements, 0)
            try await expect(await f.save([claimed]), [.alreadyStored])
            await f.store.close()
        }
    }

    func testASyncVersionReplacesAStateOfMind() async throws {
        try await forEachEngine {
            let f = try await StoreFixture()
            func state(_ valence: Double, version: Int64) -> Sample {
                Sample(type: Self.kindTypes[2], start: s(10), end: s(10),
                       metadata: [MetadataKey.syncIdentifier: .string("mood-day-1"), MetadataKey.syncVersion: .int(version)],
                       body: .stateOfMind(StateOfMind(kind: 2, valence: valence)))
            }
            try await f.save([state(-0.5, version: 1)])
            try await expect(await f.save([state(0.5, version: 2)]), [.replaced])
            try await expect(await f.query([Self.kindTypes[2]]).map(\.body), [.stateOfMind(StateOfMind(kind: 2, valence: 0.5))])
            XCTAssertEqual(try f.count("sample_details"), 1)
            await f.store.close()
        }
    }
}

/// A SQLite file from before the kinds (step 10) gains `sample_details` at open and stores them.
final class KindSchemaStepTests: XCTestCase {
    func testAStoreFromStep10OpensAndStoresEveryKind() async throws {
        let f = try await StoreFixture()
        try await f.reopenFromStep(10)
        let saved = KindStorageTests.samples()
        try await expect(await f.save(saved), Array(repeating: .stored, count: saved.count))
        try await expect(await f.query(KindStorageTests.kindTypes).count, saved.count)
        await f.store.close()
    }
}
