import Foundation
import HealthModel

/// Translates a `QueryPredicate` into an SQL condition on a sample or tombstone row aliased `s`.
/// Every leaf yields true or false, never NULL, so NOT and OR keep two-valued logic.
struct PredicateSQL {
    enum Table { case samples, tombstones }

    let table: Table
    /// Whose lookup of a sample by UUID the clauses use.
    let dialect: SQLDialect
    /// Whose rows are read: the interned rows a predicate looks up are this owner's.
    let owner: Int64
    /// The queried types with their ids (quantity operands are converted per type).
    let types: [(type: HealthType, id: Int64)]
    /// nil where `hs_meta` converts units itself (SQLite); otherwise the units of the quantities
    /// stored in the owner's metadata, into which quantity operands are converted here.
    let metadataUnits: [String]?
    /// False writes date bounds as `+s.start_time`, so that the planner does not read them through
    /// `samples_by_source` (a read that scans the type's rows in key order on purpose).
    let timeIndexed: Bool
    /// The starts of every row the clause will be applied to, when the caller knows them: a date
    /// bound that each such row meets is written TRUE (a slice of a statistics read lying inside the
    /// query's dates then compares no dates at all).
    let startsWithin: ClosedRange<Microseconds>?
    private(set) var arguments: [SQLValue] = []

    init(table: Table, dialect: SQLDialect, owner: Int64, types: [(type: HealthType, id: Int64)], metadataUnits: [String]? = nil,
         timeIndexed: Bool = true, startsWithin: ClosedRange<Microseconds>? = nil) {
        self.table = table
        self.dialect = dialect
        self.owner = owner
        self.types = types
        self.metadataUnits = metadataUnits
        self.timeIndexed = timeIndexed
        self.startsWithin = startsWithin
    }

    /// True when `predicate` compares metadata with a quantity (what `metadataUnits` is for).
    static func comparesQuantities(_ predicate: QueryPredicate?) -> Bool {
        switch predicate {
        case .allOf(let parts)?, .anyOf(let parts)?: return parts.contains { comparesQuantities($0) }
        case .not(let inner)?: return comparesQuantities(inner)
        case .metadataCompare(_, _, .quantity)?: return true
        case .metadataIn(_, let values)?: return values.contains { if case .quantity = $0 { true } else { false } }
        default: return false
        }
    }

    mutating func clause(_ predicate: QueryPredicate) throws(HealthError) -> String {
        switch predicate {
        case .allOf(let parts):
            guard !parts.isEmpty else { return "TRUE" }
            var sql: [String] = []
            for part in parts { sql.append(try clause(part)) }
            return "(" + sql.joined(separator: " AND ") + ")"
        case .anyOf(let parts):
            guard !parts.isEmpty else { return "FALSE" }
            var sql: [String] = []
            for part in parts { sql.append(try clause(part)) }
            return "(" + sql.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + (try clause(inner)) + ")"
        case .dateRange(let range):
            return dateRange(range)
        case .uuids(let uuids):
            guard table == .samples, !uuids.isEmpty else { return list("s.uuid", uuids.map { .uuid($0) }) }
            return byUUID("s.", Array(uuids))
        case .sources(let bundles):
            return "s.source IN (SELECT id FROM sources WHERE owner = " + bind(.int(owner)) + " AND " + list("bundle_id", bundles.sorted().map { .text($0) }) + ")"
        case .sourceRevisions(let patterns):
            var parts: [String] = []
            for pattern in patterns { parts.append(revision(pattern)) }
            return anyOf(parts)
        case .devices(let patterns):
            var parts: [String] = []
            for pattern in patterns { parts.append(device(pattern)) }
            return anyOf(parts)
        case .deviceProperty(let property, let values):
            return "(s.device IS NOT NULL AND s.device IN (SELECT id FROM devices WHERE owner = " + bind(.int(owner)) + " AND "
                + list(Self.column(property), values.sorted().map { .text($0) }) + "))"
        case .metadataExists(let key):
            return metadata(MetadataLeaf.exists(key: key))
        case .metadataCompare(let key, let op, .quantity(let quantity)) where metadataUnits != nil:
            let conversions = (metadataUnits ?? []).compactMap { unit in (try? quantity.value(in: unit)).map { (unit, $0) } }
            return metadata(MetadataLeaf.compareConverted(key: key, op, conversions))
        case .metadataCompare(let key, let op, let value):
            return metadata(MetadataLeaf.compare(key: key, op, value))
        case .metadataIn(let key, let values) where metadataUnits != nil && Self.comparesQuantities(predicate):
            // Stored equal to one of the values: the same as one equality per value.
            return try clause(.anyOf(values.map { .metadataCompare(key: key, .equal, $0) }))
        case .metadataIn(let key, let values):
            return metadata(MetadataLeaf.isIn(key: key, values))
        case .quantity(let op, let quantity):
            return quantityClause(op, quantity)
        case .categoryValue(let op, let value):
            guard table == .samples else { return "FALSE" }
            return "(s.category IS NOT NULL AND s.category \(op.sql) " + bind(.int(value)) + ")"
        case .categoryValueIn(let values):
            guard table == .samples else { return "FALSE" }
            return "(s.category IS NOT NULL AND " + list("s.category", values.sorted().map { .int($0) }) + ")"
        case .workoutActivityType(let activityType):
            // A tombstone carries the deleted workout's activity type itself (NULL before schema step 6: no match).
            if table == .tombstones {
                return "(s.activity_type IS NOT NULL AND s.activity_type = " + bind(.int(Int64(activityType))) + ")"
            }
            return "EXISTS (SELECT 1 FROM workouts w WHERE w.owner = s.owner AND w.anchor = s.anchor AND w.activity_type = "
                + bind(.int(Int64(activityType))) + ")"
        case .workoutDuration(let op, let duration):
            return "EXISTS (SELECT 1 FROM workouts w WHERE w.owner = s.owner AND w.anchor = s.anchor AND w.duration \(op.sql) "
                + bind(.int(duration)) + ")"
        case .noCorrelation:
            return "s.parent IS NULL"
        case .workout(let uuid):
            guard table == .samples else { return "s.uuid " + heldByWorkout(uuid, "l.sample_uuid") }
            let owner = bind(.int(owner))
            let heads = dialect.keepsUUIDLevels ? heldByWorkout(uuid, "substr(l.sample_uuid, 1, 8)") : nil
            return dialect.sampleByUUID("s.", owner: owner, heads: heads, uuids: heldByWorkout(uuid, "l.sample_uuid"))
        }
    }

    /// docs/semantics.md §6.1, clause for clause.
    private mutating func dateRange(_ range: DateRange) -> String {
        let (start, end) = timeIndexed ? ("s.start_time", "s.end_time") : ("+s.start_time", "+s.end_time")
        var clauses: [String] = []
        // A row ends no earlier than it starts, so a start at or after `first` meets either lower bound.
        if let first = range.start, !(startsWithin.map { $0.lowerBound >= first } ?? false) {
            clauses.append((range.strictStart ? "\(start) >= " : "\(end) >= ") + bind(.int(first)))
        }
        if let last = range.end {
            if !(startsWithin.map { $0.upperBound < last } ?? false) { clauses.append("\(start) < " + bind(.int(last))) }
            if range.strictEnd { clauses.append("\(end) < " + bind(.int(last))) }
        }
        return clauses.isEmpty ? "TRUE" : "(" + clauses.joined(separator: " AND ") + ")"
    }

    /// The redundant bound `start >= S − longest stored duration` that lets an overlap query (`end >= S`)
    /// use the (owner, type, start) index (docs/semantics.md §6.1 index hint, with the longest duration actually
    /// stored instead of the catalog maximum, kept in `type_extents`).
    mutating func indexHint(for predicate: QueryPredicate?) -> String? {
        guard table == .samples, !types.isEmpty, let start = Self.overlapStart(predicate) else { return nil }
        // A constant subquery (no reference to s), so SQLite evaluates it once and uses it as the range bound.
        return "s.start_time >= " + bind(.int(start))
            + " - (SELECT COALESCE(MAX(e.max_duration), 0) FROM type_extents e WHERE e.owner = " + bind(.int(owner)) + " AND e.type IN ("
            + types.map { String($0.id) }.joined(separator: ", ") + "))"
    }

    /// Roughly the start times matches have: from the latest start to the earliest end of the
    /// top-level date ranges (nil = unbounded). Samples overlapping a range's start from before it are
    /// left out: this sizes a read, it does not select rows.
    static func startWindow(_ predicate: QueryPredicate?) -> (from: Microseconds?, to: Microseconds?) {
        switch predicate {
        case .dateRange(let range)?: return (range.start, range.end)
        case .allOf(let parts)?:
            let windows = parts.map { startWindow($0) }
            return (windows.compactMap(\.from).max(), windows.compactMap(\.to).min())
        default: return (nil, nil)
        }
    }

    /// Whether `predicate` bounds the start times matches have (see `startWindow`), so a read of it
    /// is a range of each source's start times.
    static func boundsStarts(_ predicate: QueryPredicate?) -> Bool {
        let window = startWindow(predicate)
        return window.from != nil || window.to != nil
    }

    /// S of a non-strict date range that every match must satisfy (a top-level conjunct).
    private static func overlapStart(_ predicate: QueryPredicate?) -> Microseconds? {
        switch predicate {
        case .dateRange(let range)? where !range.strictStart: return range.start
        case .allOf(let parts)?: return parts.lazy.compactMap { overlapStart($0) }.max()
        default: return nil
        }
    }

    private mutating func revision(_ pattern: SourceRevisionPattern) -> String {
        var sql = "s.revision IN (SELECT r.id FROM revisions r JOIN sources o ON o.owner = r.owner AND o.id = r.source WHERE r.owner = "
            + bind(.int(owner)) + " AND o.bundle_id = " + bind(.text(pattern.bundleID))
        if let version = pattern.version { sql += " AND r.version = " + bind(.text(version)) }
        if let productType = pattern.productType { sql += " AND r.product_type = " + bind(.text(productType)) }
        if let os = pattern.osVersion {
            let parts = os + Array(repeating: 0, count: max(0, 3 - os.count))
            sql += " AND r.os_major = " + bind(.int(Int64(parts[0]))) + " AND r.os_minor = " + bind(.int(Int64(parts[1])))
                + " AND r.os_patch = " + bind(.int(Int64(parts[2])))
        }
        return sql + ")"
    }

    /// nil fields are wildcards; a sample without a device matches no device pattern.
    private mutating func device(_ pattern: Device) -> String {
        let fields = DeviceProperty.allCases.compactMap { property in property.value(of: pattern).map { (property, $0) } }
        if fields.isEmpty { return "s.device IS NOT NULL" }
        var sql = "(s.device IS NOT NULL AND s.device IN (SELECT id FROM devices WHERE owner = " + bind(.int(owner))
        for (property, value) in fields { sql += " AND \(Self.column(property)) = " + bind(.text(value)) }
        return sql + "))"
    }

    private mutating func metadata(_ leaf: Data) -> String {
        "hs_meta(s.metadata, " + bind(.blob(leaf)) + ")"
    }

    /// Compared in each type's canonical unit; types whose unit the operand cannot convert to match nothing.
    private mutating func quantityClause(_ op: ComparisonOperator, _ operand: Quantity) -> String {
        guard table == .samples else { return "FALSE" }
        var perType: [String] = []
        for (type, id) in types {
            guard let unit = type.canonicalUnit, let value = try? operand.value(in: unit) else { continue }
            perType.append("(s.type = \(id) AND s.value IS NOT NULL AND s.value \(op.sql) " + bind(.double(value)) + ")")
        }
        return anyOf(perType)
    }

    private func anyOf(_ parts: [String]) -> String {
        parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
    }

    /// `IN (…)` the `column` (the UUID `l.sample_uuid`, or an expression of it) of the samples associated
    /// with the owner's workout `uuid`.
    private mutating func heldByWorkout(_ uuid: UUID, _ column: String) -> String {
        let workout = byUUID("w.", [uuid])
        return "IN (SELECT \(column) FROM workout_samples l JOIN samples w ON w.owner = l.owner AND w.anchor = l.workout WHERE \(workout))"
    }

    /// The condition that the `samples` row aliased `alias` is the owner's row of one of `uuids`, binding
    /// each UUID's head for SQLite's levels (`SQLDialect.sampleByUUID`) and the UUID itself.
    private mutating func byUUID(_ alias: String, _ uuids: [UUID]) -> String {
        let owner = bind(.int(owner))
        let heads = dialect.keepsUUIDLevels ? list("", uuids.map { .blob(UUIDLevels.head($0)) }) : nil
        return dialect.sampleByUUID(alias, owner: owner, heads: heads, uuids: list("", uuids.map { .uuid($0) }))
    }

    private mutating func bind(_ value: SQLValue) -> String {
        arguments.append(value)
        return "?"
    }

    /// `expression IN (?, …)` binding `values`.
    private mutating func list(_ expression: String, _ values: [SQLValue]) -> String {
        arguments += values
        return Self.isIn(expression, Array(repeating: "?", count: values.count))
    }

    /// `expression IN (items)`, or FALSE for no items (PostgreSQL has no empty IN list).
    static func isIn(_ expression: String, _ items: [String]) -> String {
        items.isEmpty ? "FALSE" : expression + " IN (" + items.joined(separator: ", ") + ")"
    }

    private static func column(_ property: DeviceProperty) -> String {
        switch property {
        case .name: "name"
        case .manufacturer: "manufacturer"
        case .model: "model"
        case .hardwareVersion: "hardware_version"
        case .firmwareVersion: "firmware_version"
        case .softwareVersion: "software_version"
        case .localIdentifier: "local_identifier"
        case .udiDeviceIdentifier: "udi_device_identifier"
        }
    }
}
