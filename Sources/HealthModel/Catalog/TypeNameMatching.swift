/// Name normalisation and nearest-name search behind `TypeCatalog.resolve`.
enum TypeNameMatching {
    /// Lower-cased letters and digits only, so "HeartRate", "heart-rate" and "heart_rate" agree.
    static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) })
    }

    /// The candidate nearest to `name`, when it is close enough to be a plausible typo.
    static func nearest(to name: String, among candidates: [String]) -> String? {
        let wanted = normalized(name)
        guard !wanted.isEmpty else { return nil }
        let scored = candidates.map { ($0, EditDistance.between(wanted, normalized($0))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, wanted.count / 4) ? best.0 : nil
    }
}
