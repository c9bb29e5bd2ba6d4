import Foundation
import HealthModel
import HealthWire

/// Sample and call builders shared by the integration tests.
enum Fixtures {
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let stepCount = "HKQuantityTypeIdentifierStepCount"

    static func heartRateSample(_ bpm: Double, minutesAgo: Int = 5) -> Sample {
        let end = Time.now() - Int64(minutesAgo) * 60_000_000
        return Sample(type: heartRate, start: end - 1_000_000, end: end, body: .quantity(Quantity(bpm, "count/min"), count: 1))
    }

    static func samples(of results: [ServerResult]) -> [Sample] {
        results.flatMap { result -> [Sample] in
            if case .samples(let samples) = result { return samples }
            return []
        }
    }
}
