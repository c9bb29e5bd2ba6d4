import HealthModel

/// A type's rows read source by source: `samples_by_source` (owner, type, source, start) gives each
/// source's rows in start order and a date range of them in one seek, so a read in start order or
/// of a date range is one such range a source (a type has a few), merged, with no index of
/// (owner, type, start) to keep up on every insert.
extension Database {
    /// The sources of the owner's rows of `typeID`, ascending: a skip-scan of `samples_by_source`
    /// itself, one seek a source and one more, in the caller's snapshot, so no row is left out.
    func storedSources(owner: Int64, typeID: Int64) throws(HealthError) -> [Int64] {
        let next = try prepare("SELECT MIN(source) FROM samples WHERE owner = ? AND type = ? AND source > ?")
        defer { next.reset() }
        var sources: [Int64] = []
        var after = Int64.min
        while true {
            next.reset()
            next.bind(all: [.int(owner), .int(typeID), .int(after)])
            guard try next.step(), let source = next.optionalInt(0) else { return sources }
            sources.append(source)
            after = source
        }
    }

    /// Each of `typeIDs`' sources, for a read that merges them, or nil when they are more than
    /// `mergedSourcesAtMost` in all: that read then takes the types whole and sorts them.
    func mergeableSources(owner: Int64, typeIDs: [Int64]) throws(HealthError) -> [[Int64]]? {
        var sources: [[Int64]] = []
        for typeID in typeIDs {
            sources.append(try storedSources(owner: owner, typeID: typeID))
            if sources.joined().count > mergedSourcesAtMost { return nil }
        }
        return sources
    }

    /// The owner's rows of `typeID` as a table `s`: one arm a stored source, each read through
    /// `samples_by_source`, so a query ordered by (start, anchor) merges the arms' index orders
    /// (SQLite's MERGE of a compound, PostgreSQL's Merge Append) instead of sorting the type.
    func typeBySource(owner: Int64, typeID: Int64) throws(HealthError) -> (from: String, arguments: [SQLValue]) {
        guard let sources = try mergeableSources(owner: owner, typeIDs: [typeID])?[0] else {
            return ("(SELECT * FROM samples WHERE owner = ? AND type = ?) s", [.int(owner), .int(typeID)])
        }
        guard !sources.isEmpty else { return ("(SELECT * FROM samples WHERE FALSE) s", []) }
        let arm = "SELECT * FROM samples s \(dialect.indexedBy("samples_by_source")) WHERE s.owner = ? AND s.type = ? AND s.source = ?"
        return ("(" + Array(repeating: arm, count: sources.count).joined(separator: " UNION ALL ") + ") s",
                sources.flatMap { [SQLValue.int(owner), .int(typeID), .int($0)] })
    }
}

/// Sources a read merges at most, over all its types: SQLite refuses a compound of more than 500
/// arms (`SQLITE_MAX_COMPOUND_SELECT`), and a merge's cost a row grows with its arms.
let mergedSourcesAtMost = 100
