import Foundation
import HealthModel
import HealthWire
import XCTest

/// Electrocardiograms, audiograms, states of mind and scored assessments through a real server: the
/// owner (the Health app) saves ECGs, apps may read them but a share request is refused as HealthKit
/// refuses it; the other kinds are saved by apps, validated, read back with their derived fields,
/// reported by anchored queries and observers, and deleted with tombstones.
final class KindServerTests: XCTestCase {
    private let app = "com.example.mood"
    private static let ecg = "HKDataTypeIdentifierElectrocardiogram"
    private static let state = "HKDataTypeIdentifierStateOfMind"
    private static let audiogram = "HKDataTypeIdentifierAudiogram"
    private static let appTypes = [state, audiogram, ScoredAssessment.gad7Type, ScoredAssessment.phq9Type]

    private static func ecgSample(start: Microseconds = 1_700_000_000_000_000) -> Sample {
        let voltages = (0..<15_360).map { i in
            VoltageMeasurement(offset: Int64((Double(i) * 1e6 / 512).rounded()), microvolts: Double(i % 300) - 150.5)
        }
        return Sample(type: ecg, start: start, end: start + 30_000_000,
                      body: .electrocardiogram(Electrocardiogram(classification: 1, symptomsStatus: 1, averageHeartRate: Quantity(66, "count/min"),
                                                                 samplingFrequency: Quantity(512, "Hz"), voltages: voltages)))
    }

    private static func appSamples(at t: Microseconds) -> [Sample] {
        [
            Sample(type: state, start: t, end: t, body: .stateOfMind(StateOfMind(kind: 2, valence: 0.6, labels: [17, 7], associations: [5]))),
            Sample(type: audiogram, start: t, end: t + 600_000_000, body: .audiogram(Audiogram(points: [
                AudiogramSensitivityPoint(frequency: Quantity(1_000, "Hz"), tests: [AudiogramSensitivityTest(sensitivity: Quantity(5, "dBHL"), side: 0),
                                                                                   AudiogramSensitivityTest(sensitivity: Quantity(10, "dBHL"), side: 1)]),
            ]))),
            Sample(type: ScoredAssessment.gad7Type, start: t, end: t, body: .scoredAssessment(ScoredAssessment(answers: [2, 2, 2, 1, 1, 1, 1]))),
            Sample(type: ScoredAssessment.phq9Type, start: t, end: t, body: .scoredAssessment(ScoredAssessment(answers: [0, 0, 1, 1, 0, 0, 0, 0, 0]))),
        ]
    }

    private func query(_ client: RawClient, _ types: [String]) -> [Sample] {
        Fixtures.samples(of: client.collect(client.submit(.querySamples(SampleQuery(types: types)))))
    }

    func testOnlyTheOwnerSavesECGsAndAppsMayReadButNotShareThem() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken)
        let band = try RawClient.session(server, token: try owner.registerApp(app))
        let recording = Self.ecgSample()
        XCTAssertEqual(owner.call(.saveObjects([recording])), .saveObjects([.stored]))

        guard case .error(let refused)? = band.call(.requestAuthorization(share: [Self.ecg], read: [])) else {
            return XCTFail("a share request for the ECG type was accepted")
        }
        XCTAssertEqual(refused.code, .invalidArgument)
        XCTAssertTrue(refused.message.hasPrefix("Authorization to share the following types is disallowed: \(Self.ecg)"), refused.message)
        XCTAssertEqual(band.call(.getAuthorizationStatus(types: [Self.ecg])),
                       .authorizationStatus([TypeAuthorizationStatus(type: Self.ecg, status: .sharingDenied)]))
        XCTAssertNotNil(band.call(.saveObjects([Self.ecgSample(start: 1_700_000_100_000_000)]))?.errorCode)

        XCTAssertEqual(query(band, [Self.ecg]), [], "read not requested yet: nothing visible")
        XCTAssertEqual(band.call(.requestAuthorization(share: [], read: [Self.ecg])), .requestAuthorization)
        let read = query(band, [Self.ecg])
        XCTAssertEqual(read.map(\.uuid), [recording.uuid])
        guard case .electrocardiogram(let body)? = read.first?.body else { return XCTFail("no ECG body") }
        XCTAssertEqual(body.numberOfVoltageMeasurements, 15_360)
        XCTAssertEqual(body.voltages, [], "voltages are streamed, never sent with the sample")
        XCTAssertEqual(body.classification, 1)
        XCTAssertEqual(body.averageHeartRate, Quantity(66, "count/min"))
    }

    func testAppKindsRoundTripWithDerivedFieldsThroughQueriesAnchorsObserversAndDeletes() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken)
        let band = try RawClient.session(server, token: try owner.registerApp(app))
        XCTAssertEqual(band.call(.requestAuthorization(share: Self.appTypes, read: Self.appTypes)), .requestAuthorization)
        let observer = band.submit(.observe(types: [Self.state], predicate: nil, frequency: nil))
        XCTAssertEqual(band.receive(callID: observer)?.result, .observerEvent(changedTypes: [], sequence: 0))
        guard case .anchored(_, _, let start, _, _, _)? = band.call(.queryAnchored(AnchoredQuery(types: Self.appTypes))) else {
            return XCTFail("no anchor")
        }

        let saved = Self.appSamples(at: 1_700_000_000_000_000)
        XCTAssertEqual(band.call(.saveObjects(saved)), .saveObjects(Array(repeating: .stored, count: saved.count)))
        guard case .observerEvent(let changed, _)? = band.nextEvent(observer)?.result else { return XCTFail("no observer event") }
        XCTAssertEqual(changed, [Self.state])

        let read = query(band, Self.appTypes)
        XCTAssertEqual(Set(read.map(\.body)), Set(saved.map(\.body)))
        guard case .anchored(let added, _, let next, _, _, _)? = band.call(.queryAnchored(AnchoredQuery(types: Self.appTypes, anchor: start))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(Set(added.map(\.uuid)), Set(saved.map(\.uuid)))

        XCTAssertEqual(band.call(.deleteObjects(.uuids(saved.map(\.uuid)))), .deleteObjects(deletedCount: UInt64(saved.count)))
        guard case .anchored(_, let deleted, _, _, _, _)? = band.call(.queryAnchored(AnchoredQuery(types: Self.appTypes, anchor: next))) else {
            return XCTFail("no anchored answer")
        }
        XCTAssertEqual(Set(deleted.map(\.uuid)), Set(saved.map(\.uuid)))
        XCTAssertEqual(query(band, Self.appTypes), [])
    }

    func testScoresAreDerivedAndBadBodiesGetTheirField() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let saved = Self.appSamples(at: 1_700_000_000_000_000)
        XCTAssertEqual(owner.call(.saveObjects(saved)), .saveObjects(Array(repeating: .stored, count: saved.count)))
        let gad = try XCTUnwrap(query(owner, [ScoredAssessment.gad7Type]).first)
        guard case .scoredAssessment(let answers) = gad.body else { return XCTFail("no assessment") }
        XCTAssertEqual(answers.score, 10)
        XCTAssertEqual(answers.risk(.gad7), 3)

        let bad = Sample(type: Self.state, start: 5, end: 5, body: .stateOfMind(StateOfMind(kind: 1, valence: 2)))
        guard case .error(let error)? = owner.call(.saveObjects([saved[0], bad])) else { return XCTFail("valence 2 was accepted") }
        XCTAssertEqual(error.code, .invalidArgument)
        XCTAssertEqual(error.field, "state_of_mind.valence")
        XCTAssertEqual(error.objectIndex, 1)
    }

    func testHealthctlExportAndImportCarryTheKindsIntoAnotherOwner() throws {
        let server = try ServerProcess()
        let directory = server.dataDirectory.deletingLastPathComponent()
        let ownerA = try RawClient.session(server, token: server.ownerToken)
        let tokenB = try RawClient.session(server, token: server.operatorToken).addOwner("B")
        let tokenFileB = directory.appendingPathComponent("b.token").path
        try tokenB.write(toFile: tokenFileB, atomically: true, encoding: .utf8)
        let saved = Self.appSamples(at: 1_700_000_000_000_000)
        XCTAssertEqual(ownerA.call(.saveObjects(saved)), .saveObjects(Array(repeating: .stored, count: saved.count)))
        let recording = Self.ecgSample()
        XCTAssertEqual(ownerA.call(.saveObjects([recording])), .saveObjects([.stored]))

        let file = directory.appendingPathComponent("kinds.jsonl").path
        let types = ["StateOfMind", "Audiogram", "GAD7", "PHQ9", Self.ecg].flatMap { ["--type", $0] }
        let export = try healthctl(["export", "--output", file] + types, server: server,
                                   tokenFile: server.dataDirectory.appendingPathComponent("owner.token").path)
        XCTAssertEqual(export.status, 0, export.errors)
        let imported = try healthctl(["import", file], server: server, tokenFile: tokenFileB)
        XCTAssertEqual(imported.status, 0, imported.errors)
        let ownerB = try RawClient.session(server, token: tokenB)
        let inB = Dictionary(uniqueKeysWithValues: query(ownerB, Self.appTypes).map { ($0.uuid, $0) })
        for sample in saved {
            XCTAssertEqual(inB[sample.uuid]?.body, sample.body, sample.type)
            XCTAssertEqual(inB[sample.uuid]?.start, sample.start)
        }
        // The ECG's line carries its voltages, and the import saves them: B's export of it holds the same.
        let fileB = directory.appendingPathComponent("ecg-b.jsonl").path
        let exportB = try healthctl(["export", "--output", fileB, "--type", Self.ecg], server: server, tokenFile: tokenFileB)
        XCTAssertEqual(exportB.status, 0, exportB.errors)
        func voltages(_ path: String) throws -> [Any] {
            let line = try XCTUnwrap(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first { $0.contains(Self.ecg) })
            let fields = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try XCTUnwrap((fields?["electrocardiogram"] as? [String: Any])?["voltages"] as? [Any], path)
        }
        let (fromA, fromB) = (try voltages(file), try voltages(fileB))
        XCTAssertEqual(fromA.count, 15_360)
        XCTAssertTrue(NSArray(array: fromA).isEqual(to: fromB), "B's ECG holds A's voltages")
    }
}
