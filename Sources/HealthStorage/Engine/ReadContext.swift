import Foundation
import HealthModel

/// A reader thread's connection plus what queries need to decode rows and check anchors.
struct ReadContext {
    let db: SQLiteConnection
    let registry: Registry
    let epoch: Data

    var rows: SampleRows { SampleRows(db: db, registry: registry) }

    /// Runs `body` in one read transaction, so all its statements see one snapshot; every read job
    /// runs this way, and no statement is left holding the snapshot afterwards.
    func snapshot<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        try db.execute("BEGIN")
        defer { db.resetAll() }
        do {
            let result = try body()
            db.resetAll()
            try db.execute("COMMIT")
            return result
        } catch {
            db.resetAll()
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// The queried types with their ids; types never stored are left out (they have no rows).
    func resolve(_ identifiers: [String]) throws(HealthError) -> [(type: HealthType, id: Int64)] {
        var resolved: [(type: HealthType, id: Int64)] = []
        let lookup = try db.prepare("SELECT id FROM types WHERE identifier = ?")
        for identifier in Set(identifiers).sorted() {
            guard let type = TypeCatalog.type(identifier), type.isSampleType else {
                throw HealthError.invalid("'\(identifier)' is not a sample type", field: "type")
            }
            lookup.reset()
            lookup.bind(1, identifier)
            if try lookup.step() { resolved.append((type, lookup.int(0))) }
        }
        return resolved
    }

    func sourceID(_ bundleID: String) throws(HealthError) -> Int64? {
        let lookup = try db.prepare("SELECT id FROM sources WHERE bundle_id = ?")
        lookup.bind(1, bundleID)
        return try lookup.step() ? lookup.int(0) : nil
    }

    /// The owner's committed last anchor and purge horizon.
    func anchors(owner: Int64) throws(HealthError) -> (last: Int64, purged: Int64) {
        let statement = try db.prepare("SELECT last_anchor, purged_anchor FROM owners WHERE id = ?")
        statement.bind(1, owner)
        guard try statement.step() else { throw HealthError(.notFound, "owner #\(owner) does not exist") }
        return (statement.int(0), statement.int(1))
    }

    func anchorData(owner: Int64, sequence: Int64) -> Data {
        AnchorToken(epoch: epoch, owner: owner, sequence: sequence).encoded
    }
}

/// Read scope as SQL: rows of types the caller may not read in full are visible only when it saved
/// them; a correlation of another source only when one of its readings is readable (§3.6). The
/// correlation test runs in SQL, before any LIMIT, and on tombstones too (through the readings'
/// tombstones), so nothing about a correlation without readable readings reaches the caller.
struct ScopeSQL {
    let sql: String
    let arguments: [SQLValue]

    /// nil when every one of `types` is fully readable (no filter needed).
    init?(scope: ReadScope, types: [HealthType]?, table: PredicateSQL.Table, context: ReadContext) throws(HealthError) {
        guard let readable = scope.readableTypes else { return nil }
        if let types, types.allSatisfy({ scope.canReadAll($0.identifier) }) { return nil }
        let readableNames = readable.sorted().map { SQLValue.text($0) }
        let readableIDs = "SELECT id FROM types WHERE identifier IN (" + Self.placeholders(readableNames.count) + ")"
        var sql = "s.source = ? OR s.type IN (\(readableIDs))"
        var arguments: [SQLValue] = [.int(try context.sourceID(scope.callerBundleID) ?? -1)] + readableNames
        // Only correlation types that can hold a readable reading need the test.
        let correlations = TypeCatalog.correlationTypes
            .filter { !scope.canReadAll($0.identifier) && !($0.correlationContents ?? []).isDisjoint(with: readable) }
            .map { SQLValue.text($0.identifier) }
        if !correlations.isEmpty {
            let (rows, stored) = table == .samples ? ("samples", "s.anchor") : ("tombstones", "s.live_anchor")
            sql += " OR (s.type IN (SELECT id FROM types WHERE identifier IN (\(Self.placeholders(correlations.count))))"
                + " AND EXISTS (SELECT 1 FROM \(rows) c WHERE c.owner = s.owner AND c.parent = \(stored) AND c.type IN (\(readableIDs))))"
            arguments += correlations + readableNames
        }
        self.sql = "(" + sql + ")"
        self.arguments = arguments
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
