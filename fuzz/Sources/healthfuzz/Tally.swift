import HealthModel

/// How far inputs got: frames, decode failures, and per call kind acceptances and rejections by
/// error code and field, so a run shows whether mutations still reach the deep checks.
struct Tally {
    var inputs = 0
    var frames = 0
    private(set) var accepted: [String: Int] = [:]
    /// "stage CODE field" → count; stage is "frame", "decode" or the call kind.
    private(set) var rejections: [String: Int] = [:]
    /// Errors a stage must never produce: a frame error other than FRAME_TOO_LARGE, a decode error
    /// other than MALFORMED, a validation error that is MALFORMED, or INTERNAL_ERROR anywhere.
    private(set) var unexpected: [String: Int] = [:]

    mutating func accept(_ kind: String) {
        accepted[kind, default: 0] += 1
    }

    mutating func record(stage: String, _ error: HealthError) {
        let key = "\(stage) \(error.code.name) \(error.field ?? "-")"
        rejections[key, default: 0] += 1
        let expected: Bool = switch stage {
        case "frame": error.code == .frameTooLarge
        case "decode": error.code == .malformed
        // A live server answers undecodable frames with MALFORMED itself.
        case "server": error.code != .internalError
        default: error.code != .internalError && error.code != .malformed
        }
        if !expected { unexpected["\(key): \(error.message.prefix(200))", default: 0] += 1 }
    }

    /// Count of rejections at `stage`.
    func rejected(at stage: String) -> Int {
        rejections.filter { $0.key.hasPrefix(stage + " ") }.values.reduce(0, +)
    }

    var acceptedTotal: Int { accepted.values.reduce(0, +) }

    /// Multi-line summary: totals, calls reached per kind, the most common rejections, anything unexpected.
    func summary(top: Int = 15) -> String {
        var lines = ["inputs \(inputs), frames \(frames), frame errors \(rejected(at: "frame")), undecodable \(rejected(at: "decode")), "
            + "calls rejected by validation \(rejections.values.reduce(0, +) - rejected(at: "frame") - rejected(at: "decode")), "
            + "calls accepted \(acceptedTotal)"]
        let kinds = Set(accepted.keys).union(rejections.keys.map { String($0.split(separator: " ")[0]) })
            .subtracting(["frame", "decode"]).sorted()
        lines.append("per call kind (accepted / rejected):")
        lines.append(kinds.map { "\($0) \(accepted[$0, default: 0])/\(rejected(at: $0))" }.joined(separator: ", "))
        lines.append("most common rejections:")
        for (key, count) in rejections.sorted(by: { $0.value > $1.value }).prefix(top) { lines.append("  \(count)\t\(key)") }
        lines.append("unexpected errors: \(unexpected.isEmpty ? "none" : "")")
        for (key, count) in unexpected.sorted(by: { $0.value > $1.value }) { lines.append("  \(count)\t\(key)") }
        return lines.joined(separator: "\n")
    }
}
