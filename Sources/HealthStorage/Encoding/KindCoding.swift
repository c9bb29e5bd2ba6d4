import Foundation
import HealthModel

/// The body of an electrocardiogram, audiogram, state of mind or scored assessment as one BLOB in
/// `sample_details`: read whole with its sample, never filtered by SQL. Derived values (valence
/// classification, score, risk) are not stored; an ECG stores the count of the voltages saved with it
/// (which go to `series_chunks`).
enum KindCoding {
    static func encode(_ body: SampleBody) -> Data? {
        var w = BinaryWriter()
        switch body {
        case .electrocardiogram(let e):
            w.int(Int64(e.classification))
            w.int(Int64(e.symptomsStatus))
            w.optionalQuantity(e.averageHeartRate)
            w.optionalQuantity(e.samplingFrequency)
            w.int(Int64(e.voltages.count))
        case .audiogram(let a):
            w.varint(UInt64(a.points.count))
            for point in a.points {
                w.optionalQuantity(point.frequency)
                w.varint(UInt64(point.tests.count))
                for test in point.tests {
                    w.optionalQuantity(test.sensitivity)
                    w.int(Int64(test.conductionType))
                    w.byte(test.masked ? 1 : 0)
                    w.int(Int64(test.side))
                    w.optionalQuantity(test.clampingLowerBound)
                    w.optionalQuantity(test.clampingUpperBound)
                }
            }
        case .stateOfMind(let m):
            w.int(Int64(m.kind))
            w.double(m.valence)
            w.int32s(m.labels)
            w.int32s(m.associations)
        case .scoredAssessment(let a):
            w.int32s(a.answers)
        case .quantity, .category, .correlation, .workout, .series:
            return nil
        }
        return w.data
    }

    static func decode(_ data: Data, kind: ObjectKind) throws(HealthError) -> SampleBody {
        var r = BinaryReader(data)
        switch kind {
        case .electrocardiogram:
            return .electrocardiogram(Electrocardiogram(
                classification: try r.int32(), symptomsStatus: try r.int32(), averageHeartRate: try r.optionalQuantity(),
                samplingFrequency: try r.optionalQuantity(), numberOfVoltageMeasurements: try r.int()))
        case .audiogram:
            var points: [AudiogramSensitivityPoint] = []
            for _ in 0..<(try r.count()) {
                let frequency = try r.requiredQuantity()
                var tests: [AudiogramSensitivityTest] = []
                for _ in 0..<(try r.count()) {
                    tests.append(AudiogramSensitivityTest(
                        sensitivity: try r.requiredQuantity(), conductionType: try r.int32(), masked: try r.byte() == 1,
                        side: try r.int32(), clampingLowerBound: try r.optionalQuantity(), clampingUpperBound: try r.optionalQuantity()))
                }
                points.append(AudiogramSensitivityPoint(frequency: frequency, tests: tests))
            }
            return .audiogram(Audiogram(points: points))
        case .stateOfMind:
            return .stateOfMind(StateOfMind(kind: try r.int32(), valence: try r.double(), labels: try r.int32s(),
                                            associations: try r.int32s()))
        case .scoredAssessment:
            return .scoredAssessment(ScoredAssessment(answers: try r.int32s()))
        case .quantity, .category, .correlation, .workout, .characteristic, .series:
            throw HealthError(.internalError, "store is inconsistent: a \(kind.rawValue) sample has a detail row")
        }
    }
}

extension BinaryWriter {
    mutating func optionalQuantity(_ q: Quantity?) {
        if let q { byte(1); double(q.value); string(q.unit) } else { byte(0) }
    }

    mutating func int32s(_ values: [Int32]) {
        varint(UInt64(values.count))
        for value in values { int(Int64(value)) }
    }
}

extension BinaryReader {
    mutating func optionalQuantity() throws(HealthError) -> Quantity? {
        try byte() == 0 ? nil : Quantity(try double(), try string())
    }

    mutating func requiredQuantity() throws(HealthError) -> Quantity {
        guard let q = try optionalQuantity() else { throw HealthError(.internalError, "corrupt encoded value in the store") }
        return q
    }

    mutating func int32() throws(HealthError) -> Int32 { Int32(truncatingIfNeeded: try int()) }

    mutating func int32s() throws(HealthError) -> [Int32] {
        var values: [Int32] = []
        for _ in 0..<(try count()) { values.append(try int32()) }
        return values
    }
}
