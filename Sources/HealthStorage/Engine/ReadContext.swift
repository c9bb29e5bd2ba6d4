import Foundation
import HealthModel

/// A reader thread's connection plus what queries need to decode rows and check anchors.
struct ReadContext {
    let db: Database
    let registry: Registry
    /// The store's secret for sealing anchors.
    let anchorKey: Data
    /// The most rows a statistics read in key order sorts at once (≈ 48 bytes each); tests make it tiny.
    var statisticsSortRows = 1 << 18
    /// The most points of one quantity series a statistics read holds at once; tests make it tiny.
    var statisticsSeriesPoints = SeriesChunks.chunkSize

    var rows: SampleRows { SampleRows(db: db, registry: registry) }

    /// Runs `body` in one read transaction, so all its statements see one snapshot; every read job
    /// runs this way, and no statement is left holding the snapshot afterwards.
    func snapshot<T>(_ body: () throws(HealthError) -> T) throws(HealthError) -> T {
        try db.beginRead()
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
    func resolve(_ identifiers: [String], owner: Int64) throws(HealthError) -> [(type: HealthType, id: Int64)] {
        var resolved: [(type: HealthType, id: Int64)] = []
        let lookup = try db.prepare("SELECT id FROM types WHERE owner = ? AND identifier = ?")
        for identifier in Set(identifiers).sorted() {
            guard let type = TypeCatalog.type(identifier), type.isSampleType else {
                throw HealthError.invalid("'\(identifier)' is not a sample type", field: "type")
            }
            lookup.reset()
            lookup.bind(1, owner)
            lookup.bind(2, identifier)
            if try lookup.step() { resolved.append((type, lookup.int(0))) }
        }
        return resolved
    }

    /// Every sample type stored so far in the owner's store, with its id.
    func storedSampleTypes(owner: Int64) throws(HealthError) -> [(type: HealthType, id: Int64)] {
        let all = try db.prepare("SELECT id, identifier FROM types WHERE owner = ?")
        all.bind(1, owner)
        var types: [(type: HealthType, id: Int64)] = []
        while try all.step() {
            if let type = all.text(1).flatMap(TypeCatalog.type), type.isSampleType { types.append((type, all.int(0))) }
        }
        return types
    }

    func sourceID(_ bundleID: String, owner: Int64) throws(HealthError) -> Int64? {
        let lookup = try db.prepare("SELECT id FROM sources WHERE owner = ? AND bundle_id = ?")
        lookup.bind(1, owner)
        lookup.bind(2, bundleID)
        return try lookup.step() ? lookup.int(0) : nil
    }

    /// The owner's committed last anchor.
    func lastAnchor(owner: Int64) throws(HealthError) -> Int64 {
        let statement = try db.prepare("SELECT last_anchor FROM anchor_counters WHERE owner = ?")
        statement.bind(1, owner)
        guard try statement.step() else { throw HealthError(.notFound, "owner #\(owner) does not exist") }
        return statement.int(0)
    }

    /// The highest purged tombstone among those the caller could be shown by a query of `types`:
    /// its own, and those of the types it reads in full (for a correlation type, the readings it may
    /// read stand for the correlations they are in). Other sources' purges of unreadable types never
    /// count, so an expiry reveals nothing the caller may not read.
    func purgeHorizon(owner: Int64, types: [(type: HealthType, id: Int64)], scope: ReadScope) throws(HealthError) -> Int64 {
        let queried = PredicateSQL.isIn("type", types.map { String($0.id) })
        var sql = "SELECT MAX(purged_through) FROM purge_horizons WHERE owner = ? AND "
        var arguments: [SQLValue] = [.int(owner)]
        if let readable = scope.readableTypes {
            var shown = Set<String>()
            for (type, _) in types {
                if readable.contains(type.identifier) { shown.insert(type.identifier) }
                shown.formUnion((type.correlationContents ?? []).intersection(readable))
            }
            let names = shown.sorted().map { SQLValue.text($0) }
            sql += "((source = ? AND \(queried)) OR type IN (SELECT id FROM types WHERE owner = ? AND "
                + PredicateSQL.isIn("identifier", names.map { _ in "?" }) + "))"
            arguments += [.int(try sourceID(scope.callerBundleID, owner: owner) ?? -1), .int(owner)] + names
        } else {
            sql += queried
        }
        let statement = try db.prepareOnce(sql)
        statement.bind(all: arguments)
        _ = try statement.step()
        return statement.optionalInt(0) ?? 0
    }
}
