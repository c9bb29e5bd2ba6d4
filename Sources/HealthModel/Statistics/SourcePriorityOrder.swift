/// Which source wins where samples overlap (docs/semantics.md decision 5): bundle ids the owner ordered, then
/// sources not ordered, the most recently first-seen above older ones. User-entered samples outrank all
/// of these; that tier is a property of samples, so it is applied by `rank(of:)`.
public struct SourcePriorityOrder: Sendable, Hashable {
    /// Every known bundle id, highest priority first.
    public let bundleIDs: [String]
    private let position: [String: Int]

    /// - Parameters:
    ///   - ordered: the owner's order for the type (SetSourcePriority), highest first.
    ///   - firstSeen: when each source first saved the type; sources missing from `ordered` are ranked
    ///     after it, newest first, ties by bundle id so the order is deterministic.
    public init(ordered: [String] = [], firstSeen: [String: Microseconds] = [:]) {
        var ids: [String] = []
        var seen = Set<String>()
        for id in ordered where seen.insert(id).inserted { ids.append(id) }
        let unordered = firstSeen.filter { !seen.contains($0.key) }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        ids += unordered.map(\.key)
        bundleIDs = ids
        position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset) })
    }

    /// Rank of a bundle id: 0 is highest. Ids the order has never heard of rank below every known one.
    public func rank(of bundleID: String) -> Int {
        position[bundleID] ?? bundleIDs.count
    }

    /// Merge rank of a sample: user-entered samples first, then the source's rank; lower wins.
    /// Unknown bundle ids share the lowest source rank and are told apart by bundle id.
    func rank(of sample: StatInput) -> SampleRank {
        SampleRank(userEnteredTier: sample.wasUserEntered ? 0 : 1, source: rank(of: sample.sourceBundleID),
                   bundleID: sample.sourceBundleID)
    }
}

/// Total order of merge priority; the smallest rank wins a time slice.
struct SampleRank: Hashable, Comparable {
    let userEnteredTier: Int
    let source: Int
    let bundleID: String

    static func < (a: SampleRank, b: SampleRank) -> Bool {
        (a.userEnteredTier, a.source, a.bundleID) < (b.userEnteredTier, b.source, b.bundleID)
    }
}
