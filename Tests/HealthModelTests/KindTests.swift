import XCTest
@testable import HealthModel

/// Electrocardiograms, audiograms, states of mind and scored assessments: the catalog, HealthKit's
/// validation, the derived valence classification, score and risk, compact voltages and the JSON form.
final class KindTests: XCTestCase {
    private func sample(_ type: String, start: Microseconds = 1_000_000, end: Microseconds? = nil, _ body: SampleBody) -> Sample {
        Sample(type: type, start: start, end: end ?? start, body: body)
    }

    private func fieldOfError(_ s: Sample, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            try SampleValidator.validate([s])
            XCTFail("accepted", file: file, line: line)
            return nil
        } catch {
            return error.field
        }
    }

    private static let ecgType = "HKDataTypeIdentifierElectrocardiogram"
    private static let stateType = "HKDataTypeIdentifierStateOfMind"
    private static let audiogramType = "HKDataTypeIdentifierAudiogram"

    private func ecg(_ voltages: [VoltageMeasurement], classification: Int32 = 1) -> Electrocardiogram {
        Electrocardiogram(classification: classification, symptomsStatus: 1, averageHeartRate: Quantity(64, "count/min"),
                          samplingFrequency: Quantity(512, "Hz"), voltages: voltages)
    }

    func testCatalogHasTheKindsWithHealthKitsIdentifiers() throws {
        XCTAssertEqual(try TypeCatalog.resolve("Electrocardiogram").kind, .electrocardiogram)
        XCTAssertEqual(try TypeCatalog.resolve("audiogram").identifier, "HKDataTypeIdentifierAudiogram")
        XCTAssertEqual(try TypeCatalog.resolve("state-of-mind").identifier, "HKDataTypeIdentifierStateOfMind")
        XCTAssertEqual(try TypeCatalog.resolve("GAD7").identifier, "HKScoredAssessmentTypeIdentifierGAD7")
        XCTAssertEqual(try TypeCatalog.resolve("phq9").kind, .scoredAssessment)
        XCTAssertFalse(TypeCatalog.electrocardiogramType.isShareable)
        XCTAssertTrue(TypeCatalog.electrocardiogramType.isReadable)
        XCTAssertTrue(TypeCatalog.stateOfMindType.isShareable && TypeCatalog.audiogramType.isShareable)
    }

    func testValenceClassificationCutsTheRangeIntoSevenBands() {
        let cases: [(Double, Int32?)] = [(-1, 1), (-0.8, 1), (-5.0 / 7, 2), (-0.5, 2), (-3.0 / 7, 3), (-0.2, 3),
                                         (-1.0 / 7, 4), (0, 4), (0.1, 4), (0.2, 5), (0.5, 6), (0.75, 7), (1, 7),
                                         (1.01, nil), (-1.5, nil), (.nan, nil)]
        for (valence, expected) in cases {
            XCTAssertEqual(StateOfMind.valenceClassification(valence), expected, "\(valence)")
        }
    }

    func testScoreAndRiskFollowTheAnswers() {
        let gad = ScoredAssessment(answers: [3, 3, 3, 3, 3, 0, 0])
        XCTAssertEqual(gad.score, 15)
        XCTAssertEqual(gad.risk(.gad7), 4)
        XCTAssertEqual(ScoredAssessment(answers: [1, 1, 1, 1, 0, 0, 0]).risk(.gad7), 1)
        XCTAssertEqual(ScoredAssessment(answers: [1, 1, 1, 1, 1, 0, 0]).risk(.gad7), 2)
        let phq = ScoredAssessment(answers: [2, 2, 2, 2, 2, 2, 2, 1, ScoredAssessment.preferNotToAnswer])
        XCTAssertEqual(phq.score, 15)
        XCTAssertEqual(phq.risk(.phq9), 4)
        XCTAssertEqual(ScoredAssessment(answers: Array(repeating: 3, count: 9)).risk(.phq9), 5)
    }

    func testAssessmentsAreValidatedAsHealthKitDoes() {
        let gad = ScoredAssessment.gad7Type, phq = ScoredAssessment.phq9Type
        XCTAssertNoThrow(try SampleValidator.validate([sample(phq, .scoredAssessment(ScoredAssessment(answers: [0, 1, 2, 3, 0, 1, 2, 3, 4])))]))
        XCTAssertEqual(fieldOfError(sample(gad, .scoredAssessment(ScoredAssessment(answers: [0, 0, 0])))), "scored_assessment.answers")
        XCTAssertEqual(fieldOfError(sample(gad, .scoredAssessment(ScoredAssessment(answers: [4, 0, 0, 0, 0, 0, 0])))),
                       "scored_assessment.answers[0]")
        XCTAssertEqual(fieldOfError(sample(phq, .scoredAssessment(ScoredAssessment(answers: [4, 0, 0, 0, 0, 0, 0, 0, 0])))),
                       "scored_assessment.answers[0]")
        XCTAssertEqual(fieldOfError(sample(gad, end: 2_000_000, .scoredAssessment(ScoredAssessment(answers: Array(repeating: 0, count: 7))))),
                       "end_time")
        XCTAssertEqual(fieldOfError(sample(gad, .stateOfMind(StateOfMind(kind: 1, valence: 0)))), "type")
    }

    func testStatesOfMindAreValidatedAsHealthKitDoes() {
        XCTAssertNoThrow(try SampleValidator.validate([sample(Self.stateType, .stateOfMind(StateOfMind(kind: 2, valence: -1, labels: [38], associations: [18])))]))
        XCTAssertEqual(fieldOfError(sample(Self.stateType, .stateOfMind(StateOfMind(kind: 1, valence: 1.2)))), "state_of_mind.valence")
        XCTAssertEqual(fieldOfError(sample(Self.stateType, .stateOfMind(StateOfMind(kind: 3, valence: 0)))), "state_of_mind.kind")
        XCTAssertEqual(fieldOfError(sample(Self.stateType, .stateOfMind(StateOfMind(kind: 1, valence: 0, labels: [17, 39])))),
                       "state_of_mind.labels[1]")
        XCTAssertEqual(fieldOfError(sample(Self.stateType, .stateOfMind(StateOfMind(kind: 1, valence: 0, associations: [0])))),
                       "state_of_mind.associations[0]")
    }

    func testAudiogramsAreValidatedAsHealthKitDoes() {
        func test(_ db: Double, side: Int32 = 0, masked: Bool = false, lower: Double? = nil, upper: Double? = nil,
                  unit: String = "dBHL") -> AudiogramSensitivityTest {
            AudiogramSensitivityTest(sensitivity: Quantity(db, unit), masked: masked, side: side,
                                     clampingLowerBound: lower.map { Quantity($0, "dBHL") }, clampingUpperBound: upper.map { Quantity($0, "dBHL") })
        }
        func audiogram(_ points: [AudiogramSensitivityPoint]) -> Sample {
            sample(Self.audiogramType, end: 600_000_000, .audiogram(Audiogram(points: points)))
        }
        let good = audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10), test(15, side: 1), test(20, masked: true)]),
                              AudiogramSensitivityPoint(frequency: Quantity(2, "kHz"), tests: [test(25, lower: 0, upper: 90)])])
        XCTAssertNoThrow(try SampleValidator.validate([good]))
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(10, "Hz"), tests: [test(10)])])),
                       "audiogram.points[0].frequency")
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10), test(12)])])),
                       "audiogram.points[0].tests[1].side")
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10, lower: 50, upper: 20)])])),
                       "audiogram.points[0].tests[0].clamping_lower_bound")
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10, unit: "Hz")])])),
                       "audiogram.points[0].tests[0].sensitivity.unit")
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10, side: 2)])])),
                       "audiogram.points[0].tests[0].side")
        XCTAssertEqual(fieldOfError(audiogram([AudiogramSensitivityPoint(frequency: Quantity(1000, "Hz"), tests: [test(10)]),
                                               AudiogramSensitivityPoint(frequency: Quantity(1, "kHz"), tests: [test(10)])])),
                       "audiogram.points[1].frequency")
    }

    func testElectrocardiogramsAreValidated() {
        let voltages = (0..<512).map { VoltageMeasurement(offset: Int64($0) * 1_953, microvolts: 10) }
        XCTAssertNoThrow(try SampleValidator.validate([sample(Self.ecgType, end: 1_000_000 + 30_000_000, .electrocardiogram(ecg(voltages)))]))
        XCTAssertEqual(fieldOfError(sample(Self.ecgType, end: 1_500_000, .electrocardiogram(ecg(voltages)))),
                       "electrocardiogram.voltages[257].offset")
        XCTAssertEqual(fieldOfError(sample(Self.ecgType, end: 31_000_000, .electrocardiogram(ecg(voltages.reversed())))),
                       "electrocardiogram.voltages[1].offset")
        XCTAssertEqual(fieldOfError(sample(Self.ecgType, end: 31_000_000, .electrocardiogram(ecg(voltages, classification: 7)))),
                       "electrocardiogram.classification")
        XCTAssertEqual(fieldOfError(sample(Self.ecgType, end: 31_000_000, .electrocardiogram(
            Electrocardiogram(samplingFrequency: nil)))), "electrocardiogram.sampling_frequency")
        XCTAssertEqual(fieldOfError(sample(Self.ecgType, end: 31_000_000, .electrocardiogram(
            Electrocardiogram(samplingFrequency: Quantity(512, "count/min"))))), "electrocardiogram.sampling_frequency.unit")
    }

    func testVoltagesPackCompactlyOnTheGrid() throws {
        // 30 s at 512 Hz: offsets on the frequency's grid (rounded to µs), a heartbeat-like waveform.
        let voltages = (0..<15_360).map { (i: Int) -> VoltageMeasurement in
            let beat: Double = Double(i % 400 - 200) / 8
            let spike: Double = 900 * exp(-beat * beat)
            let wander: Double = 40 * sin(Double(i) / 30) + Double(i % 7) * 0.123
            return VoltageMeasurement(offset: Int64((Double(i) * 1e6 / 512).rounded()), microvolts: spike + wander)
        }
        let bytes = VoltageMeasurement.pack(voltages)
        XCTAssertLessThanOrEqual(bytes.count, 4 * voltages.count)
        XCTAssertEqual(try VoltageMeasurement.unpack(bytes, count: voltages.count), voltages.map { $0.onGrid })
        XCTAssertThrowsError(try VoltageMeasurement.unpack(Array(bytes.dropLast()), count: voltages.count))
    }

    func testJSONCarriesTheDerivedFields() {
        let state = SampleJSON.sample(sample(Self.stateType, .stateOfMind(StateOfMind(kind: 1, valence: 0.5, labels: [17]))))
        XCTAssertTrue(state.text(pretty: false).contains("\"valence_classification\":6"))
        XCTAssertTrue(state.text(pretty: false).contains("\"kind\":\"state_of_mind\""))
        let phq = SampleJSON.sample(sample(ScoredAssessment.phq9Type, .scoredAssessment(ScoredAssessment(answers: Array(repeating: 3, count: 9)))))
        XCTAssertTrue(phq.text(pretty: false).contains("\"risk\":5"))
        XCTAssertTrue(phq.text(pretty: false).contains("\"score\":27"))
    }
}
