/// Name normalisation and nearest-name search behind `TypeCatalog.resolve`.
enum TypeNameMatching {
    /// Lower-cased letters and digits only, so "HeartRate", "heart-rate" and "heart_rate" agree.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) })
    }

    /// Levenshtein distance between two strings (by Unicode scalar).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }

    /// The candidate nearest to `name`, when it is close enough to be a plausible typo.
    static func nearest(to name: String, among candidates: [String]) -> String? {
        let wanted = normalized(name)
        guard !wanted.isEmpty else { return nil }
        let scored = candidates.map { ($0, editDistance(wanted, normalized($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, wanted.count / 4) ? best.0 : nil
    }
}
