/// The scored-assessment-specific part of a sample (HKGAD7Assessment, HKPHQ9Assessment): the answers
/// in question order; the score and risk are derived from them.
public struct ScoredAssessment: Sendable, Hashable {
    public let answers: [Int32]

    public init(answers: [Int32]) { self.answers = answers }

    /// The questionnaire a scored assessment type records.
    public enum Instrument: Sendable {
        case gad7, phq9

        /// The instrument of a scored assessment type identifier, nil for any other type.
        public init?(type: String) {
            switch type {
            case ScoredAssessment.gad7Type: self = .gad7
            case ScoredAssessment.phq9Type: self = .phq9
            default: return nil
            }
        }

        /// How many questions it asks.
        public var questionCount: Int { self == .gad7 ? 7 : 9 }

        /// Answer raw values and names (HKGAD7Assessment.Answer, HKPHQ9Assessment.Answer).
        public var answerNames: [Int32: String] {
            var names: [Int32: String] = [0: "notAtAll", 1: "severalDays", 2: "moreThanHalfTheDays", 3: "nearlyEveryDay"]
            if self == .phq9 { names[4] = "preferNotToAnswer" }
            return names
        }

        /// Risk raw values (HKGAD7Assessment.Risk, HKPHQ9Assessment.Risk) with their names and score ranges.
        public var risks: [(risk: Int32, name: String, scores: ClosedRange<Int>)] {
            switch self {
            case .gad7: [(1, "noneToMinimal", 0...4), (2, "mild", 5...9), (3, "moderate", 10...14), (4, "severe", 15...21)]
            case .phq9: [(1, "noneToMinimal", 0...4), (2, "mild", 5...9), (3, "moderate", 10...14),
                         (4, "moderatelySevere", 15...19), (5, "severe", 20...27)]
            }
        }
    }

    public static let gad7Type = "HKScoredAssessmentTypeIdentifierGAD7"
    public static let phq9Type = "HKScoredAssessmentTypeIdentifierPHQ9"
    /// PHQ-9's "prefer not to answer", allowed for its last question only; it scores 0.
    public static let preferNotToAnswer: Int32 = 4

    /// The sum of the answers' points (0…3 each).
    public var score: Int { answers.reduce(0) { $0 + ($1 == Self.preferNotToAnswer ? 0 : Int($1)) } }

    /// The risk raw value of this score on `instrument`'s scale (0 when the score is outside it).
    public func risk(_ instrument: Instrument) -> Int32 {
        instrument.risks.first { $0.scores.contains(score) }?.risk ?? 0
    }
}
