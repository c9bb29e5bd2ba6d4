/// One quantity sample as statistics see it: interval, value in the type's canonical unit, and source.
public struct StatInput: Sendable, Hashable {
    public let start: Microseconds
    public let end: Microseconds
    /// Value in the type's canonical unit.
    public let value: Double
    public let sourceBundleID: String
    public let sourceName: String
    /// The sample carries HKWasUserEntered = true: it outranks every source (docs/semantics.md decision 5).
    public let wasUserEntered: Bool

    public init(start: Microseconds, end: Microseconds, value: Double, sourceBundleID: String,
                sourceName: String = "", wasUserEntered: Bool = false) {
        self.start = start
        self.end = end
        self.value = value
        self.sourceBundleID = sourceBundleID
        self.sourceName = sourceName.isEmpty ? sourceBundleID : sourceName
        self.wasUserEntered = wasUserEntered
    }

    /// Length in microseconds (0 for an instantaneous sample).
    var duration: Microseconds { end - start }

    /// The sample's source.
    var source: Source { Source(name: sourceName, bundleID: sourceBundleID) }
}
