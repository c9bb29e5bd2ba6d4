import Foundation
import HealthModel

/// Turns sample rows into `Sample` values with their revision, device, correlation children and
/// workout parts. Works on whichever connection runs the query (writer or reader).
struct SampleRows {
    let db: Database
    let registry: Registry

    /// Row flags.
    static let userEntered: Int64 = 1, correlation: Int64 = 2, workout: Int64 = 4
    /// The body is a row of `sample_details` (electrocardiogram, audiogram, state of mind, scored assessment).
    static let detail: Int64 = 8
    /// A quantity sample a series builder made, its points in `series_chunks`.
    static let quantitySeries: Int64 = 16
    /// A workout route or heartbeat series: its points in `series_chunks`, its count in `count`.
    static let series: Int64 = 32

    /// The columns every sample query selects, in the order `sample(from:)` reads them.
    static let columns = """
        s.owner, s.anchor, s.uuid, s.type, s.start_time, s.end_time, s.value, s.unit, s.raw_value, s.count, \
        s.category, s.revision, s.device, s.created, s.flags, s.metadata
        """

    /// Decodes the current row; `childFilter` is an SQL condition on a child row `s` (read scope).
    func sample(from row: Statement, childFilter: (sql: String, arguments: [SQLValue])?) throws(HealthError) -> Sample {
        let owner = row.int(0), anchor = row.int(1)
        let type = try registry.type(row.int(3), owner: owner, db)
        let flags = row.int(14)
        let body: SampleBody
        var discreteSeries: DiscreteSeriesSummary?
        if flags & Self.correlation != 0 {
            body = .correlation(try children(owner: owner, parent: anchor, filter: childFilter))
        } else if flags & Self.workout != 0 {
            body = .workout(try workout(owner: owner, anchor: anchor))
        } else if flags & Self.detail != 0 {
            body = try detail(owner: owner, anchor: anchor, type: type)
        } else if flags & Self.series != 0 {
            body = .series(count: row.optionalInt(9) ?? 0)
        } else if let canonical = row.optionalDouble(6) {
            // No unit stored: the client used the type's canonical unit.
            guard let unit = row.text(7) ?? TypeCatalog.type(type)?.canonicalUnit else {
                throw HealthError(.internalError, "store is inconsistent: quantity of '\(type)' without a unit at anchor \(anchor)")
            }
            body = .quantity(Quantity(row.optionalDouble(8) ?? canonical, unit), count: row.optionalInt(9) ?? 1)
            if flags & Self.quantitySeries != 0 {
                discreteSeries = try QuantitySeriesRows(db: db).summary(owner: owner, uuid: row.uuid(2), unit: unit)
            }
        } else {
            body = .category(row.optionalInt(10) ?? 0)
        }
        return Sample(uuid: row.uuid(2), type: type, start: row.int(4), end: row.int(5),
                      metadata: try MetadataCoding.decode(row.blob(15)),
                      device: try row.optionalInt(12).map { id throws(HealthError) in try registry.device(id, owner: owner, db) },
                      sourceRevision: try registry.revision(row.int(11), owner: owner, db), creationTime: row.int(13), body: body,
                      discreteSeries: discreteSeries)
    }

    /// Whether the current row is a plain quantity or category sample without metadata, which a
    /// `SampleTable` holds as a row of values.
    static func isPlain(_ row: Statement) -> Bool {
        row.int(14) & (correlation | workout | detail | quantitySeries | series) == 0 && (row.isNull(15) || row.blob(15)?.isEmpty != false)
    }

    /// The owner's sample `uuid`, if stored, read through a statement prepared once per connection:
    /// the writer reads back every series it finishes (an import's routes and heartbeat series), and
    /// parsing the statement each time cost more than the rest of the finish.
    func sample(owner: Int64, uuid: UUID) throws(HealthError) -> Sample? {
        let statement = try db.prepare("SELECT \(Self.columns) FROM samples s WHERE \(db.dialect.sampleByUUID("s."))")
        defer { statement.reset() }
        statement.bind(all: [.int(owner), .uuid(uuid)])
        return try statement.step() ? try sample(from: statement, childFilter: nil) : nil
    }

    /// Runs a query selecting `columns` and decodes every row.
    func samples(_ sql: String, _ arguments: [SQLValue], childFilter: (sql: String, arguments: [SQLValue])?) throws(HealthError) -> [Sample] {
        let statement = try db.prepareOnce(sql)
        statement.bind(all: arguments)
        var result: [Sample] = []
        while try statement.step() { result.append(try sample(from: statement, childFilter: childFilter)) }
        return result
    }

    private func children(owner: Int64, parent: Int64, filter: (sql: String, arguments: [SQLValue])?) throws(HealthError) -> [Sample] {
        var sql = "SELECT \(Self.columns) FROM samples s WHERE s.owner = ? AND s.parent = ?"
        var arguments: [SQLValue] = [.int(owner), .int(parent)]
        if let filter {
            sql += " AND (\(filter.sql))"
            arguments += filter.arguments
        }
        return try samples(sql + " ORDER BY s.anchor", arguments, childFilter: nil)
    }

    private func detail(owner: Int64, anchor: Int64, type: String) throws(HealthError) -> SampleBody {
        let row = try db.prepare("SELECT detail FROM sample_details WHERE owner = ? AND anchor = ?")
        row.bind(1, owner)
        row.bind(2, anchor)
        defer { row.reset() }
        guard try row.step(), let kind = TypeCatalog.type(type)?.kind else {
            throw HealthError(.internalError, "store is inconsistent: detail row missing for anchor \(anchor)")
        }
        return try KindCoding.decode(row.blob(0) ?? Data(), kind: kind)
    }

    private func workout(owner: Int64, anchor: Int64) throws(HealthError) -> Workout {
        // `duration` is the active duration, derived at save time when none was given (HKWorkout.duration).
        let row = try db.prepare("SELECT activity_type, duration, detail FROM workouts WHERE owner = ? AND anchor = ?")
        row.bind(1, owner)
        row.bind(2, anchor)
        guard try row.step() else { throw HealthError(.internalError, "store is inconsistent: workout row missing for anchor \(anchor)") }
        let (events, activities, statistics) = try WorkoutCoding.decode(row.blob(2))
        let activityType = Int32(truncatingIfNeeded: row.int(0)), duration = row.optionalInt(1)
        let links = try db.prepare("SELECT sample_uuid FROM workout_samples WHERE owner = ? AND workout = ?")
        links.bind(1, owner)
        links.bind(2, anchor)
        var associated: [UUID] = []
        while try links.step() { associated.append(links.uuid(0)) }
        return Workout(activityType: activityType, duration: duration, events: events, activities: activities,
                       statistics: statistics, associatedSampleUUIDs: associated)
    }
}

/// Collects rows selecting `SampleRows.columns` into a `SampleTable`: plain rows as values naming
/// their type, unit, device and revision by index (each looked up once per table), any other row
/// as a whole `Sample`.
struct SampleTableRows {
    let rows: SampleRows
    let childFilter: (sql: String, arguments: [SQLValue])?
    private(set) var table = SampleTable()
    /// Store ids → the table's indexes.
    private var types = IndexMap(), devices = IndexMap(), revisions = IndexMap()
    /// Each type's canonical unit's index, for quantities stored without a unit.
    private var canonicalUnits = IndexMap()

    init(_ rows: SampleRows, childFilter: (sql: String, arguments: [SQLValue])?) {
        self.rows = rows
        self.childFilter = childFilter
    }

    mutating func append(from row: Statement) throws(HealthError) {
        guard SampleRows.isPlain(row) else { return table.append(try rows.sample(from: row, childFilter: childFilter)) }
        let (owner, typeID, registry, db) = (row.int(0), row.int(3), rows.registry, rows.db)
        let type = try types.index(typeID) { () throws(HealthError) in table.add(type: try registry.type(typeID, owner: owner, db)) }
        let body: SampleTable.Body
        if let canonical = row.optionalDouble(6) {
            let unit: Int32
            if let stored = row.text(7) {
                unit = table.add(unit: stored)
            } else {
                unit = try canonicalUnits.index(typeID) { () throws(HealthError) in
                    guard let canonicalUnit = TypeCatalog.type(table.types[Int(type)])?.canonicalUnit else {
                        throw HealthError(.internalError, "store is inconsistent: quantity of '\(table.types[Int(type)])' without a unit at anchor \(row.int(1))")
                    }
                    return table.add(unit: canonicalUnit)
                }
            }
            body = .quantity(value: row.optionalDouble(8) ?? canonical, unit: unit, count: row.optionalInt(9) ?? 1)
        } else {
            body = .category(row.optionalInt(10) ?? 0)
        }
        var device: Int32 = -1
        if let deviceID = row.optionalInt(12) {
            device = try devices.index(deviceID) { () throws(HealthError) in table.add(device: try registry.device(deviceID, owner: owner, db)) }
        }
        let revisionID = row.int(11)
        let revision = try revisions.index(revisionID) { () throws(HealthError) in
            table.add(revision: try registry.revision(revisionID, owner: owner, db))
        }
        table.append(SampleTable.Row(uuid: row.uuid(2), type: type, device: device, revision: revision, start: row.int(4), end: row.int(5),
                                     creationTime: row.int(13), body: body))
    }

    /// The rows so far, leaving this table empty: later rows keep the shared parts' indexes, so each
    /// table taken reads alone.
    mutating func takeTable() -> SampleTable {
        defer { table.removeRows() }
        return table
    }

    /// Store ids → table indexes: looked up by position for the small ids rows of small tables have
    /// (one array read per row instead of hashing), by dictionary beyond.
    private struct IndexMap {
        /// Index + 1 by id; 0 for an id not seen yet.
        private var byID: [Int32] = []
        private var beyond: [Int64: Int32] = [:]
        private static let positional: Int64 = 1 << 16

        /// The index of `id`, or the one `add` gives it.
        mutating func index(_ id: Int64, add: () throws(HealthError) -> Int32) throws(HealthError) -> Int32 {
            guard id >= 0 && id < Self.positional else {
                if let known = beyond[id] { return known }
                let added = try add()
                beyond[id] = added
                return added
            }
            let position = Int(id)
            if position < byID.count, byID[position] != 0 { return byID[position] - 1 }
            let added = try add()
            if position >= byID.count { byID += repeatElement(0, count: position + 1 - byID.count) }
            byID[position] = added + 1
            return added
        }
    }
}
