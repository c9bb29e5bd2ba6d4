/// The values each quantity type accepts, in its canonical unit. Percentages are fractions (0.97 is
/// 97 %); temperatures may be below zero; every other quantity is a non-negative amount, rate, count
/// or level. Upper bounds sit far above any human measurement and only refuse values no device or
/// person produces (a 1e300 kg body, a 9,700 % saturation), so unusual real data is still stored.
enum QuantityValueRanges {
    /// By canonical unit (every quantity type has one).
    private static let byUnit: [String: ClosedRange<Double>] = [
        "%": 0...1,
        "count": 0...10_000_000,
        "m": 0...10_000_000,
        "cm": 0...1_000,
        "kg": 0...1_000,
        "g": 0...100_000,
        "kcal": 0...1_000_000,
        // A cumulative time within one sample cannot exceed the 4-day maximum sample duration.
        "min": 0...5_760,
        "ms": 0...100_000,
        "count/s": 0...(1_000.0 / 60),
        "count/min": 0...1_000,
        "degC": -273.15...1_000,
        "mmHg": 0...1_000,
        "mg/dL": 0...10_000,
        "IU": 0...10_000,
        "mL/(kg.min)": 0...1_000,
        "S": 0...1,
        "m/s": 0...300,
        "W": 0...10_000,
        "kcal/(hr.kg)": 0...100,
        "appleEffortScore": 0...10,
        "dBASPL": 0...250,
        "L": 0...100,
        "L/min": 0...2_000,
        "mL": 0...100_000,
    ]

    /// Types whose range is narrower than their unit's, by identifier suffix.
    private static let byType: [String: ClosedRange<Double>] = [
        "Height": 0...10,
        "WaistCircumference": 0...10,
        "WalkingStepLength": 0...10,
        "RunningStrideLength": 0...10,
        "UnderwaterDepth": 0...11_000,
        "BodyMassIndex": 0...1_000,
        "UVExposure": 0...100,
        "BodyTemperature": 0...100,
        "BasalBodyTemperature": 0...100,
        "AppleSleepingWristTemperature": 0...100,
    ]

    /// The range of the type with this identifier suffix and canonical unit.
    static func range(name: String, canonicalUnit: String) -> ClosedRange<Double>? {
        byType[name] ?? byUnit[canonicalUnit]
    }
}
