/// Conjuncts that every sample of the queried types meets, taken out before a read.
extension QueryPredicate {
    /// This predicate for samples of `types`, without the top-level `noCorrelation` conjuncts none of
    /// them can fail: only the types of `TypeCatalog.correlationMemberTypes` are ever saved inside a
    /// correlation (CorrelationRules). Nil when nothing is left, so that an export's read of such a
    /// type (`noCorrelation` and nothing else) is the read without a predicate that a sync is: its last
    /// anchor found by an index seek instead of by reading every row before the first page is sent.
    public func reduced(forTypes types: [String]) -> QueryPredicate? {
        guard !types.contains(where: TypeCatalog.correlationMemberTypes.contains) else { return self }
        switch self {
        case .noCorrelation:
            return nil
        case .allOf(let parts):
            let kept = parts.filter { $0 != .noCorrelation }
            return kept.isEmpty ? nil : .allOf(kept)
        default:
            return self
        }
    }

    /// Whether this leaves out the readings inside correlations and nothing else (an export's
    /// predicate): the last sample it keeps is the last stored, or a few readings before it.
    public var leavesOutOnlyCorrelationReadings: Bool { self == .noCorrelation || self == .allOf([.noCorrelation]) }
}
