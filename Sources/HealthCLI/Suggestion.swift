import HealthModel

/// "Did you mean" suggestions for mistyped names.
public enum Suggestion {
    /// The candidate nearest to `word` by edit distance, when it is plausibly a typo of it, or the
    /// shortest candidate that `word` (three letters or more) begins.
    public static func nearest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 3, let completion = candidates.filter({ $0.lowercased().hasPrefix(lowered) })
            .min(by: { ($0.count, $0) < ($1.count, $1) }) {
            return completion
        }
        let scored = candidates.map { ($0, EditDistance.between(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }
}
