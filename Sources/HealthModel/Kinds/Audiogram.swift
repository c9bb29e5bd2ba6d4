/// One test at one frequency of an audiogram (HKAudiogramSensitivityTest).
public struct AudiogramSensitivityTest: Sendable, Hashable {
    /// HKAudiogramConductionType raw values (air is the only one).
    public static let conductionTypeNames: [Int32: String] = [0: "air"]
    /// HKAudiogramSensitivityTestSide raw values.
    public static let sideNames: [Int32: String] = [0: "left", 1: "right"]

    /// Hearing level, "dBHL" compatible.
    public let sensitivity: Quantity
    public let conductionType: Int32
    public let masked: Bool
    public let side: Int32
    /// HKAudiogramSensitivityPointClampingRange's bounds ("dBHL"); nil = unbounded on that side, both nil = no range.
    public let clampingLowerBound: Quantity?
    public let clampingUpperBound: Quantity?

    public init(sensitivity: Quantity, conductionType: Int32 = 0, masked: Bool = false, side: Int32,
                clampingLowerBound: Quantity? = nil, clampingUpperBound: Quantity? = nil) {
        self.sensitivity = sensitivity
        self.conductionType = conductionType
        self.masked = masked
        self.side = side
        self.clampingLowerBound = clampingLowerBound
        self.clampingUpperBound = clampingUpperBound
    }
}

/// The tests at one frequency of an audiogram (HKAudiogramSensitivityPoint).
public struct AudiogramSensitivityPoint: Sendable, Hashable {
    /// "Hz" compatible.
    public let frequency: Quantity
    public let tests: [AudiogramSensitivityTest]

    public init(frequency: Quantity, tests: [AudiogramSensitivityTest]) {
        self.frequency = frequency
        self.tests = tests
    }
}

/// The audiogram-specific part of a sample (HKAudiogramSample).
public struct Audiogram: Sendable, Hashable {
    public let points: [AudiogramSensitivityPoint]

    public init(points: [AudiogramSensitivityPoint]) { self.points = points }
}
