import Foundation
import HealthModel

/// The statistics read: readable quantity rows of one type, each handed to the math as it is read.
extension ReadContext {
    /// Hands every readable sample of `type` matching `predicate` to `sink` as a `StatInput` in its
    /// type's canonical unit, in ascending start order (ties in storage order, a quantity series' points
    /// after the rows starting with them). A quantity series counts as its points, so a series spanning
    /// two buckets splits by them. Returns the most rows one sort held (0: the rows came in order
    /// through the index), at most `statisticsSortRows`.
    @discardableResult
    func statisticsSamples<Sink: StatInputSink>(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope,
                                                into sink: inout Sink) throws(HealthError) -> Int {
        let resolved = try resolve([type], owner: owner)
        guard let typeID = resolved.first?.id else { return 0 }
        var sources = RevisionSources(registry: registry, owner: owner, db: db)
        var series: [(anchor: Int64, source: Source, wasUserEntered: Bool)] = []
        // Rows after the first series row wait for its points: they are handed on merged in start order.
        var held: [StatInput] = []
        func take(_ row: StatRow) throws(HealthError) {
            let source = try sources.source(of: row.revision)
            let wasUserEntered = row.flags & SampleRows.userEntered != 0
            if row.flags & SampleRows.quantitySeries != 0 {
                series.append((row.anchor, source, wasUserEntered))
                return
            }
            let sample = StatInput(start: row.start, end: row.end, value: row.value, sourceBundleID: source.bundleID,
                                   sourceName: source.name, wasUserEntered: wasUserEntered)
            if series.isEmpty { sink.add(sample) } else { held.append(sample) }
        }
        var mostSorted = 0
        if scope.canReadAll(type), try coversMostOf(typeID, owner: owner, predicate: predicate),
           case let plan = try keyOrderPlan(owner: owner, typeID: typeID, rows: statisticsSortRows), plan.keyRangesWin {
            // The type's rows slice by slice: each slice (at most `statisticsSortRows` rows,
            // consecutive in (start, anchor) order, cut from `samples_by_time`'s entries alone) is
            // read from its range of the key and sorted here into the order the index gives, and
            // slices follow one another in that order, so the math sees the rows exactly as through
            // the index while no more than one slice is held, however many rows the type has.
            // `s.anchor BETWEEN` hands SQLite the slice's range of the key; the bounds on (start,
            // anchor), written `+s.start_time`, pick the slice's rows from it and cannot draw SQLite to
            // the time index instead. Rows saved in so little time order that the slices' ranges
            // overlap too much stream through the index instead (`keyRangesWin`).
            var builder = PredicateSQL(table: .samples, dialect: db.dialect, owner: owner, types: resolved,
                                       metadataUnits: try db.metadataUnits(owner: owner, for: predicate), timeIndexed: false)
            let clause = try predicate.map { (p: QueryPredicate) throws(HealthError) in try builder.clause(p) } ?? "TRUE"
            let statement = try db.prepareOnce("""
                SELECT \(StatRow.columns) FROM samples s \(db.dialect.byPrimaryKey)
                WHERE s.owner = ? AND s.type = ? AND s.anchor BETWEEN ? AND ?
                  AND (+s.start_time, s.anchor) >= (?, ?) AND (+s.start_time, s.anchor) <= (?, ?)
                  AND \(clause) AND s.value IS NOT NULL
                """)
            var rows: [StatRow] = []
            rows.reserveCapacity(plan.slices.first?.count ?? 0)
            for slice in plan.slices {
                statement.reset()
                statement.bind(all: [.int(owner), .int(typeID), .int(slice.lowestAnchor), .int(slice.highestAnchor),
                                     .int(slice.first.start), .int(slice.first.anchor), .int(slice.last.start), .int(slice.last.anchor)]
                               + builder.arguments)
                while try statement.step() { rows.append(StatRow(statement)) }
                rows.sort { $0.start != $1.start ? $0.start < $1.start : $0.anchor < $1.anchor }
                mostSorted = max(mostSorted, rows.count)
                for row in rows { try take(row) }
                rows.removeAll(keepingCapacity: true)
            }
        } else {
            let (from, whereSQL, arguments, _) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
            let statement = try db.prepareOnce("""
                SELECT \(StatRow.columns) FROM \(from) WHERE \(whereSQL) AND s.value IS NOT NULL ORDER BY s.start_time, s.anchor
                """)
            statement.bind(all: arguments)
            while try statement.step() { try take(StatRow(statement)) }
        }
        guard !series.isEmpty, let canonical = resolved[0].type.canonicalUnit else { return mostSorted }
        // Points lie inside their series' interval, so none starts before a row already handed on.
        let rows = QuantitySeriesRows(db: db)
        let uuid = try db.prepare("SELECT uuid FROM samples WHERE owner = ? AND type = ? AND anchor = ?")
        for (anchor, source, wasUserEntered) in series {
            uuid.reset()
            uuid.bind(all: [.int(owner), .int(typeID), .int(anchor)])
            guard try uuid.step() else { continue }
            held += try rows.statisticsPoints(owner: owner, uuid: uuid.uuid(0), canonical: canonical, source: source,
                                              wasUserEntered: wasUserEntered)
        }
        held.sort { $0.start < $1.start }
        for sample in held { sink.add(sample) }
        return mostSorted
    }

    /// Whether `predicate`'s dates span at least half of the times the owner's rows of the type start
    /// in. Such a read scans the type's rows in key order and sorts them: seeking each row from
    /// `samples_by_time` costs SQLite more than twice as much as reading it in key order (the
    /// table's key is compared at every level of its b-tree), more than reading the rows a range
    /// leaves out. A narrower range reads through the index.
    func coversMostOf(_ typeID: Int64, owner: Int64, predicate: QueryPredicate?) throws(HealthError) -> Bool {
        let extent = try db.prepare("""
            SELECT (SELECT MIN(start_time) FROM samples WHERE owner = ?1 AND type = ?2),
                   (SELECT MAX(start_time) FROM samples WHERE owner = ?1 AND type = ?2)
            """)
        extent.bind(all: [.int(owner), .int(typeID)])
        defer { extent.reset() }
        guard try extent.step(), let first = extent.optionalInt(0), let last = extent.optionalInt(1) else { return false }
        let window = PredicateSQL.startWindow(predicate)
        let from = max(first, window.from ?? first), to = min(last + 1, window.to ?? last + 1)
        return to > from && (to - from) * 2 >= last + 1 - first
    }
}

/// The columns the statistics read takes of a row, in `columns`' order.
private struct StatRow {
    static let columns = "s.start_time, s.end_time, s.value, s.revision, s.flags, s.anchor"
    let start: Microseconds
    let end: Microseconds
    let value: Double
    let revision: Int64
    let flags: Int64
    let anchor: Int64

    init(_ statement: Statement) {
        start = statement.int(0)
        end = statement.int(1)
        value = statement.double(2)
        revision = statement.int(3)
        flags = statement.int(4)
        anchor = statement.int(5)
    }
}

/// Each row's source by its revision id: a year of samples comes from a few revisions, each looked up
/// once, and runs of rows from one revision skip even the dictionary.
private struct RevisionSources {
    let registry: Registry
    let owner: Int64
    let db: Database
    private var known: [Int64: Source] = [:]
    private var last: (revision: Int64, source: Source)?

    init(registry: Registry, owner: Int64, db: Database) {
        self.registry = registry
        self.owner = owner
        self.db = db
    }

    mutating func source(of revision: Int64) throws(HealthError) -> Source {
        if let last, last.revision == revision { return last.source }
        let source: Source
        if let found = known[revision] {
            source = found
        } else {
            source = try registry.revision(revision, owner: owner, db).source
            known[revision] = source
        }
        last = (revision, source)
        return source
    }
}
