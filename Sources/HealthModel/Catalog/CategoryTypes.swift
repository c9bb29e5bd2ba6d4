/// Every category type of docs/semantics.md §4.3 with its exact value set, duration limit (see
/// `DurationLimits`), required metadata and Apple-only flag.
enum CategoryTypes {
    private static let notApplicable: [Int64: String] = [0: "notApplicable"]
    private static let severity: [Int64: String] = [0: "unspecified", 1: "notPresent", 2: "mild", 3: "moderate", 4: "severe"]
    private static let presence: [Int64: String] = [0: "present", 1: "notPresent"]
    private static let testResult: [Int64: String] = [1: "negative", 2: "positive", 3: "indeterminate"]
    private static let vaginalBleeding: [Int64: String] = [1: "unspecified", 2: "light", 3: "medium", 4: "heavy", 5: "none"]

    /// The cycle-tracking symptoms of iOS 13.6 (14-day limit, see `DurationLimits`).
    private static let cycleSymptoms: Set<String> = [
        "AbdominalCramps", "Acne", "Bloating", "BreastPain", "Constipation", "Diarrhea", "Fatigue",
        "Headache", "HotFlashes", "LowerBackPain", "Nausea", "PelvicPain",
    ]

    /// Symptom types valued by `HKCategoryValueSeverity`.
    static let severitySymptoms = [
        "AbdominalCramps", "Acne", "BladderIncontinence", "Bloating", "BreastPain", "ChestTightnessOrPain",
        "Chills", "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting", "Fatigue",
        "Fever", "GeneralizedBodyAche", "HairLoss", "Headache", "Heartburn", "HotFlashes", "LossOfSmell",
        "LossOfTaste", "LowerBackPain", "MemoryLapse", "Nausea", "NightSweats", "PelvicPain",
        "RapidPoundingOrFlutteringHeartbeat", "RunnyNose", "ShortnessOfBreath", "SinusCongestion",
        "SkippedHeartbeat", "SoreThroat", "VaginalDryness", "Vomiting", "Wheezing",
    ]

    /// Apple-only category types (docs/semantics.md §3.2): Apple Watch detections and stand hours. High/low heart rate
    /// events are reported refused [2nd]; the other detections are the same kind of value [inf].
    static let appleOnly: Set<String> = [
        "AppleStandHour", "HighHeartRateEvent", "LowHeartRateEvent", "IrregularHeartRhythmEvent",
        "AppleWalkingSteadinessEvent", "LowCardioFitnessEvent", "SleepApneaEvent",
    ]

    private enum Limit { case standard, reproductive, weeklyEvent, cycleDetection, unrestricted, undetermined }

    private static let rows: [(String, [Int64: String], Limit)] = [
        ("SleepAnalysis", [0: "inBed", 1: "asleepUnspecified", 2: "awake", 3: "asleepCore", 4: "asleepDeep", 5: "asleepREM"], .standard),
        ("AppleStandHour", [0: "stood", 1: "idle"], .standard),
        ("MindfulSession", notApplicable, .standard),
        ("HighHeartRateEvent", notApplicable, .standard),
        ("LowHeartRateEvent", notApplicable, .standard),
        ("IrregularHeartRhythmEvent", notApplicable, .standard),
        ("HandwashingEvent", notApplicable, .standard),
        ("ToothbrushingEvent", notApplicable, .standard),
        ("SleepApneaEvent", notApplicable, .standard),
        ("IntermenstrualBleeding", notApplicable, .reproductive),
        ("SexualActivity", notApplicable, .reproductive),
        ("Pregnancy", notApplicable, .undetermined),
        ("Lactation", notApplicable, .undetermined),
        ("InfrequentMenstrualCycles", notApplicable, .cycleDetection),
        ("IrregularMenstrualCycles", notApplicable, .cycleDetection),
        ("PersistentIntermenstrualBleeding", notApplicable, .cycleDetection),
        ("ProlongedMenstrualPeriods", notApplicable, .cycleDetection),
        ("CervicalMucusQuality", [1: "dry", 2: "sticky", 3: "creamy", 4: "watery", 5: "eggWhite"], .reproductive),
        ("OvulationTestResult", [1: "negative", 2: "luteinizingHormoneSurge", 3: "indeterminate", 4: "estrogenSurge"], .reproductive),
        ("PregnancyTestResult", testResult, .standard),
        ("ProgesteroneTestResult", testResult, .standard),
        ("MenstrualFlow", vaginalBleeding, .unrestricted),
        ("BleedingDuringPregnancy", vaginalBleeding, .unrestricted),
        ("BleedingAfterPregnancy", vaginalBleeding, .unrestricted),
        ("Contraceptive", [1: "unspecified", 2: "implant", 3: "injection", 4: "intrauterineDevice",
                           5: "intravaginalRing", 6: "oral", 7: "patch"], .undetermined),
        ("AppetiteChanges", [0: "unspecified", 1: "noChange", 2: "decreased", 3: "increased"], .reproductive),
        ("MoodChanges", presence, .reproductive),
        ("SleepChanges", presence, .reproductive),
        ("EnvironmentalAudioExposureEvent", [1: "momentaryLimit"], .standard),
        ("HeadphoneAudioExposureEvent", [1: "sevenDayLimit"], .weeklyEvent),
        ("LowCardioFitnessEvent", [1: "lowFitness"], .standard),
        ("AppleWalkingSteadinessEvent", [1: "initialLow", 2: "initialVeryLow", 3: "repeatLow", 4: "repeatVeryLow"], .standard),
    ] + severitySymptoms.map { ($0, severity, cycleSymptoms.contains($0) ? .reproductive : .standard) }

    /// Metadata keys some category types require (docs/semantics.md §7.4).
    private static let requiredKeys: [String: [String]] = ["MenstrualFlow": ["HKMenstrualCycleStart"]]

    static let all: [HealthType] = rows.map { name, values, limit in
        let maximum: Microseconds? = switch limit {
        case .standard: DurationLimits.standard
        case .reproductive: DurationLimits.reproductive
        case .weeklyEvent: DurationLimits.weeklyEvent
        case .cycleDetection: DurationLimits.cycleDetection
        case .unrestricted, .undetermined: nil
        }
        return HealthType(identifier: "HKCategoryTypeIdentifier" + name, kind: .category,
                          categoryValues: Set(values.keys), maximumDuration: maximum,
                          allowsUndeterminedDuration: limit == .undetermined,
                          appleOnlyWrite: appleOnly.contains(name), requiredMetadataKeys: requiredKeys[name] ?? [],
                          valueNames: values)
    }
}
