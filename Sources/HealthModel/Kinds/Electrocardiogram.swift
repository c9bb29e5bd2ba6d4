/// One voltage measurement of an electrocardiogram (HKElectrocardiogram.VoltageMeasurement): Apple
/// Watch records a single lead, appleWatchSimilarToLeadI.
public struct VoltageMeasurement: Sendable, Hashable {
    /// Microseconds since the recording's start.
    public let offset: Microseconds
    /// Microvolts.
    public let microvolts: Double

    public init(offset: Microseconds, microvolts: Double) {
        self.offset = offset
        self.microvolts = microvolts
    }
}

/// The electrocardiogram-specific part of a sample (HKElectrocardiogram). Raw values are HealthKit's.
public struct Electrocardiogram: Sendable, Hashable {
    /// HKElectrocardiogram.Classification raw values and names.
    public static let classificationNames: [Int32: String] = [
        0: "notSet", 1: "sinusRhythm", 2: "atrialFibrillation", 3: "inconclusiveLowHeartRate",
        4: "inconclusiveHighHeartRate", 5: "inconclusivePoorReading", 6: "inconclusiveOther", 100: "unrecognized",
    ]
    /// HKElectrocardiogram.SymptomsStatus raw values and names.
    public static let symptomsStatusNames: [Int32: String] = [0: "notSet", 1: "none", 2: "present"]

    public let classification: Int32
    public let symptomsStatus: Int32
    /// "count/min" compatible; nil when not known.
    public let averageHeartRate: Quantity?
    /// "Hz" compatible.
    public let samplingFrequency: Quantity?
    /// How many voltage measurements the recording holds: the store's count on read, `voltages.count` on save.
    public let numberOfVoltageMeasurements: Int64
    /// The measurements in time order, on save; empty on read (they are streamed separately).
    public let voltages: [VoltageMeasurement]

    public init(classification: Int32 = 0, symptomsStatus: Int32 = 0, averageHeartRate: Quantity? = nil,
                samplingFrequency: Quantity?, numberOfVoltageMeasurements: Int64? = nil, voltages: [VoltageMeasurement] = []) {
        self.classification = classification
        self.symptomsStatus = symptomsStatus
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.numberOfVoltageMeasurements = numberOfVoltageMeasurements ?? Int64(voltages.count)
        self.voltages = voltages
    }

    /// This recording as saving stores it and reading returns it: the count is the server's, that of
    /// the voltages sent (a count claimed without voltages is not kept, so a stored count always
    /// matches the stored voltages), and the voltages are left out.
    public var asSaved: Electrocardiogram {
        Electrocardiogram(classification: classification, symptomsStatus: symptomsStatus, averageHeartRate: averageHeartRate,
                          samplingFrequency: samplingFrequency, numberOfVoltageMeasurements: Int64(voltages.count))
    }
}
