/// The state-of-mind-specific part of a sample (HKStateOfMind). Raw values are HealthKit's.
public struct StateOfMind: Sendable, Hashable {
    /// HKStateOfMind.Kind raw values.
    public static let kindNames: [Int32: String] = [1: "momentaryEmotion", 2: "dailyMood"]
    /// HKStateOfMind.ValenceClassification raw values, from very unpleasant (1) to very pleasant (7).
    public static let valenceClassificationNames: [Int32: String] = [
        1: "veryUnpleasant", 2: "unpleasant", 3: "slightlyUnpleasant", 4: "neutral", 5: "slightlyPleasant",
        6: "pleasant", 7: "veryPleasant",
    ]
    /// HKStateOfMind.Label raw values.
    public static let labelNames: [Int32: String] = [
        1: "amazed", 2: "amused", 3: "angry", 4: "anxious", 5: "ashamed", 6: "brave", 7: "calm", 8: "content",
        9: "disappointed", 10: "discouraged", 11: "disgusted", 12: "embarrassed", 13: "excited", 14: "frustrated",
        15: "grateful", 16: "guilty", 17: "happy", 18: "hopeless", 19: "irritated", 20: "jealous", 21: "joyful",
        22: "lonely", 23: "passionate", 24: "peaceful", 25: "proud", 26: "relieved", 27: "sad", 28: "scared",
        29: "stressed", 30: "surprised", 31: "worried", 32: "annoyed", 33: "confident", 34: "drained", 35: "hopeful",
        36: "indifferent", 37: "overwhelmed", 38: "satisfied",
    ]
    /// HKStateOfMind.Association raw values.
    public static let associationNames: [Int32: String] = [
        1: "community", 2: "currentEvents", 3: "dating", 4: "education", 5: "family", 6: "fitness", 7: "friends",
        8: "health", 9: "hobbies", 10: "identity", 11: "money", 12: "partner", 13: "selfCare", 14: "spirituality",
        15: "tasks", 16: "travel", 17: "work", 18: "weather",
    ]

    public let kind: Int32
    /// −1 (very unpleasant) … 1 (very pleasant).
    public let valence: Double
    public let labels: [Int32]
    public let associations: [Int32]

    public init(kind: Int32, valence: Double, labels: [Int32] = [], associations: [Int32] = []) {
        self.kind = kind
        self.valence = valence
        self.labels = labels
        self.associations = associations
    }

    /// HKStateOfMind.ValenceClassification(valence:): the range −1…1 cut into seven equal bands, very
    /// unpleasant (1) to very pleasant (7); nil outside −1…1. A value on a boundary takes the band
    /// nearer neutral, so 0 ± 1/7 is neutral.
    public static func valenceClassification(_ valence: Double) -> Int32? {
        guard valence.isFinite, (-1...1).contains(valence) else { return nil }
        let band = (abs(valence) * 7 - 1) / 2
        let steps = Int32(band.rounded(.up).clamped(to: 0...3))
        return valence < 0 ? 4 - steps : 4 + steps
    }

    /// This state's valence classification (0 for a valence outside −1…1, which validation refuses).
    public var valenceClassification: Int32 { Self.valenceClassification(valence) ?? 0 }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
