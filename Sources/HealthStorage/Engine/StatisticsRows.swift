import Foundation
import HealthModel

/// The statistics read: readable quantity rows of one type, each handed to the math as it is read.
extension ReadContext {
    /// Hands every readable sample of `type` matching `predicate` to `sink` as a `StatInput` in its
    /// type's canonical unit, in ascending start order (ties in storage order, a quantity series' points
    /// after the rows starting with them). A quantity series counts as its points, so a series spanning
    /// two buckets splits by them. Returns what it held at most: rows of one slice (0: the rows came in
    /// order through the index), at most `statisticsSortRows`, and series points, at most
    /// `statisticsSeriesPoints` for each series whose points are still to come at once.
    @discardableResult
    func statisticsSamples<Sink: StatInputSink>(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope,
                                                into sink: inout Sink) throws(HealthError) -> StatisticsHeld {
        let resolved = try resolve([type], owner: owner)
        guard let typeID = resolved.first?.id else { return StatisticsHeld() }
        var sources = RevisionSources(registry: registry, owner: owner, db: db)
        var series = SeriesPointMerge(owner: owner, canonical: resolved[0].type.canonicalUnit ?? "", db: db, pagePoints: statisticsSeriesPoints)
        let uuid = try db.prepare("SELECT uuid FROM samples WHERE owner = ? AND type = ? AND anchor = ?")
        func take(_ row: StatRow) throws(HealthError) {
            let source = try sources.source(of: row.revision)
            let wasUserEntered = row.flags & SampleRows.userEntered != 0
            if !series.isEmpty { try series.hand(before: row.start, to: &sink) }
            if row.flags & SampleRows.quantitySeries != 0 {
                uuid.reset()
                uuid.bind(all: [.int(owner), .int(typeID), .int(row.anchor)])
                if try uuid.step() { try series.add(uuid: uuid.uuid(0), source: source, wasUserEntered: wasUserEntered) }
                return
            }
            sink.add(StatInput(start: row.start, end: row.end, value: row.value, sourceBundleID: source.bundleID,
                               sourceName: source.name, wasUserEntered: wasUserEntered))
        }
        var mostSorted = 0
        if scope.canReadAll(type), try coversMostOf(typeID, owner: owner, predicate: predicate),
           case let plan = try keyOrderPlan(owner: owner, typeID: typeID, rows: statisticsSortRows), plan.keyRangesWin {
            // The type's rows slice by slice: each slice (at most `statisticsSortRows` rows,
            // consecutive in (start, anchor) order, cut from `samples_by_source`'s entries alone) is
            // read from the ranges of the key its rows lie in and sorted here, unless they came in
            // order, into the order the index gives; slices follow one another in that order, so the
            // math sees the rows exactly as through the index while no more than one slice is held,
            // however many rows the type has. `s.anchor BETWEEN` hands SQLite a range of the key.
            // Ranges that may hold other slices' rows pick the slice's own by its bounds on (start,
            // anchor), written `+s.start_time` so as not to draw SQLite to `samples_by_source`; ranges
            // holding only the slice's rows (the slice visits no more rows than it has) skip those
            // two comparisons a row. A slice whose rows all start inside the query's dates (each one
            // when the dates hold every row of the type) compares no dates either: the bounds its
            // rows meet by their starts are left out of its clause. Rows saved in so little time order that the slices' ranges are too
            // many or overlap too much stream through `samples_by_source`, its sources merged, instead (`keyRangesWin`).
            let metadataUnits = try db.metadataUnits(owner: owner, for: predicate)
            let select = """
                SELECT \(StatRow.columns) FROM samples s \(db.dialect.byPrimaryKey)
                WHERE s.owner = ? AND s.type = ? AND s.anchor BETWEEN ? AND ?
                """
            var statements: [String: Statement] = [:]
            var rows: [StatRow] = []
            rows.reserveCapacity(plan.slices.first?.count ?? 0)
            for slice in plan.slices {
                var inOrder = true
                let alone = slice.visits == slice.count
                var builder = PredicateSQL(table: .samples, dialect: db.dialect, owner: owner, types: resolved, metadataUnits: metadataUnits,
                                           timeIndexed: false, startsWithin: slice.first.start...slice.last.start)
                let clause = try predicate.map { (p: QueryPredicate) throws(HealthError) in try builder.clause(p) } ?? "TRUE"
                let sql = alone ? "\(select) AND \(clause) AND s.value IS NOT NULL" : """
                    \(select) AND (+s.start_time, s.anchor) >= (?, ?) AND (+s.start_time, s.anchor) <= (?, ?)
                      AND \(clause) AND s.value IS NOT NULL
                    """
                let statement: Statement
                if let prepared = statements[sql] {
                    statement = prepared
                } else {
                    statement = try db.prepareOnce(sql)
                    statements[sql] = statement
                }
                for range in slice.anchors {
                    statement.reset()
                    let key: [SQLValue] = [.int(owner), .int(typeID), .int(range.lowerBound), .int(range.upperBound)]
                    let bounds: [SQLValue] = alone ? [] : [.int(slice.first.start), .int(slice.first.anchor),
                                                           .int(slice.last.start), .int(slice.last.anchor)]
                    statement.bind(all: key + bounds + builder.arguments)
                    while try statement.step() {
                        let row = StatRow(statement)
                        if inOrder, let last = rows.last, !last.precedes(row) { inOrder = false }
                        rows.append(row)
                    }
                }
                if !inOrder { rows.sort { $0.precedes($1) } }
                mostSorted = max(mostSorted, rows.count)
                for row in rows { try take(row) }
                rows.removeAll(keepingCapacity: true)
            }
        } else {
            let (from, whereSQL, arguments, _) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples,
                                                            bySource: true)
            let statement = try db.prepareStreamed("""
                SELECT \(StatRow.columns) FROM \(from) WHERE \(whereSQL) AND s.value IS NOT NULL ORDER BY s.start_time, s.anchor
                """)
            statement.bind(all: arguments)
            while try statement.step() { try take(StatRow(statement)) }
        }
        uuid.reset()
        try series.hand(before: nil, to: &sink)
        return StatisticsHeld(sortedRows: mostSorted, seriesPoints: series.mostHeld)
    }

    /// Whether `predicate`'s dates span at least half of the times the owner's rows of the type start
    /// in. Such a read scans the type's rows in key order and sorts them: seeking each row from
    /// `samples_by_source` costs SQLite more than twice as much as reading it in key order (the
    /// table's key is compared at every level of its b-tree), more than reading the rows a range
    /// leaves out. A narrower range reads through the index.
    func coversMostOf(_ typeID: Int64, owner: Int64, predicate: QueryPredicate?) throws(HealthError) -> Bool {
        // Each source's first and last start are the ends of its range of `samples_by_source`.
        let extent = try db.prepare("""
            SELECT (SELECT MIN(start_time) FROM samples WHERE owner = ?1 AND type = ?2 AND source = ?3),
                   (SELECT MAX(start_time) FROM samples WHERE owner = ?1 AND type = ?2 AND source = ?3)
            """)
        defer { extent.reset() }
        var starts: ClosedRange<Microseconds>?
        for source in try db.storedSources(owner: owner, typeID: typeID) {
            extent.reset()
            extent.bind(all: [.int(owner), .int(typeID), .int(source)])
            guard try extent.step(), let first = extent.optionalInt(0), let last = extent.optionalInt(1) else { continue }
            starts = starts.map { min($0.lowerBound, first)...max($0.upperBound, last) } ?? first...last
        }
        guard let first = starts?.lowerBound, let last = starts?.upperBound else { return false }
        let window = PredicateSQL.startWindow(predicate)
        let from = max(first, window.from ?? first), to = min(last + 1, window.to ?? last + 1)
        return to > from && (to - from) * 2 >= last + 1 - first
    }
}

/// What a statistics read held in memory at most.
struct StatisticsHeld: Equatable {
    /// Rows of one slice of a read in key order, held to be sorted (0 when the rows came in order
    /// through the index).
    var sortedRows = 0
    /// Quantity series points read and not yet handed on.
    var seriesPoints = 0
}

/// The columns the statistics read takes of a row, in `columns`' order: the duration rather than the
/// generated `end_time`, which SQLite would compute for every row.
private struct StatRow {
    static let columns = "s.start_time, s.duration, s.value, s.revision, s.flags, s.anchor"
    let start: Microseconds
    let end: Microseconds
    let value: Double
    let revision: Int64
    let flags: Int64
    let anchor: Int64

    /// Whether the row comes before `other` in the order the index gives: (start, anchor).
    func precedes(_ other: StatRow) -> Bool { start != other.start ? start < other.start : anchor < other.anchor }

    init(_ statement: Statement) {
        start = statement.int(0)
        end = start + statement.int(1)
        value = statement.double(2)
        revision = statement.int(3)
        flags = statement.int(4)
        anchor = statement.int(5)
    }
}

/// Each row's source by its revision id: a year of samples comes from a few revisions, each looked up
/// once, and rows of the last few revisions met (a few sources' rows interleaved in time) skip even
/// the dictionary.
private struct RevisionSources {
    let registry: Registry
    let owner: Int64
    let db: Database
    private var known: [Int64: Source] = [:]
    /// The revisions last looked up, at most `recentCount`, the latest first.
    private var recent: [(revision: Int64, source: Source)] = []
    private static let recentCount = 4

    init(registry: Registry, owner: Int64, db: Database) {
        self.registry = registry
        self.owner = owner
        self.db = db
    }

    mutating func source(of revision: Int64) throws(HealthError) -> Source {
        for entry in recent where entry.revision == revision { return entry.source }
        let source: Source
        if let found = known[revision] {
            source = found
        } else {
            source = try registry.revision(revision, owner: owner, db).source
            known[revision] = source
        }
        if recent.count == Self.recentCount { recent.removeLast() }
        recent.insert((revision, source), at: 0)
        return source
    }
}
