import Foundation
import HealthModel

/// Deleting on the writer thread: every deleted row leaves a tombstone in the owner's anchor sequence.
extension WriteContext {
    /// Where a sample row is: the table is clustered on (owner, type, anchor).
    struct RowKey {
        let type: Int64, anchor: Int64
    }

    /// Deletes by UUID, atomically: every UUID must be stored and (unless the owner deletes) the caller's own.
    func delete(uuids: [UUID], by deleter: Deleter) throws(HealthError) -> Int {
        guard !uuids.isEmpty else { throw HealthError.invalid("no objects to delete", field: "uuids") }
        let owner = deleter.owner.rawValue
        try lockOwner(owner)
        let find = try db.prepare("SELECT type, anchor, source FROM samples WHERE \(db.dialect.sampleByUUID())")
        var rows: [RowKey] = []
        var seen = Set<UUID>()
        for (index, uuid) in uuids.enumerated() where seen.insert(uuid).inserted {
            find.reset()
            find.bind(1, owner)
            find.bind(2, uuid)
            // Another source's object is "not stored" for an app, exactly like an unknown UUID: a
            // different answer would tell a read-restricted app that the object exists (docs/semantics.md decision 7).
            let stored = try find.step()
            guard stored, try deleter.isOwner ? true : registry.bundleID(find.int(2), owner: owner, db) == deleter.bundleID else {
                throw HealthError(.invalidArgument, "object \(uuid) is not stored", objectIndex: index, field: "uuids")
            }
            rows.append(RowKey(type: find.int(0), anchor: find.int(1)))
        }
        var deleted = 0
        for row in rows where try deleteRow(owner: owner, row) { deleted += 1 }
        return deleted
    }

    /// Deletes the objects of `type` matching `predicate` (the caller's own unless the owner deletes).
    func delete(type: String, predicate: QueryPredicate?, by deleter: Deleter) throws(HealthError) -> Int {
        guard let healthType = TypeCatalog.type(type), healthType.isSampleType else {
            throw HealthError.invalid("'\(type)' is not a sample type", field: "type")
        }
        let owner = deleter.owner.rawValue
        try lockOwner(owner)
        let typeID = try self.typeID(type, owner: owner)
        var builder = PredicateSQL(table: .samples, dialect: db.dialect, owner: owner, types: [(healthType, typeID)],
                                   metadataUnits: try db.metadataUnits(owner: owner, for: predicate))
        var sql = "SELECT s.anchor FROM samples s WHERE s.owner = ? AND s.type = ?"
        var arguments: [SQLValue] = [.int(owner), .int(typeID)]
        if let predicate {
            sql += " AND " + (try builder.clause(predicate))
            if let hint = builder.indexHint(for: predicate) { sql += " AND " + hint }
            arguments += builder.arguments
        }
        // The caller's own rows, or a date range of every source's: ranges of `samples_by_source`
        // ([nil]: the type's rows at once, through the key).
        var sources: [Int64?] = [nil]
        if !deleter.isOwner {
            guard let source = try existingSourceID(deleter.bundleID, owner: owner) else { return 0 }
            sources = [source]
        } else if PredicateSQL.boundsStarts(predicate) {
            sources = try db.storedSources(owner: owner, typeID: typeID)
        }
        let statement = try db.prepareOnce(sql + (sources == [nil] ? "" : " AND s.source = ?"))
        var anchors: [Int64] = []
        for source in sources {
            statement.reset()
            statement.bind(all: arguments + (source.map { [.int($0)] } ?? []))
            while try statement.step() { anchors.append(statement.int(0)) }
        }
        anchors.sort()
        var deleted = 0
        for anchor in anchors where try deleteRow(owner: owner, RowKey(type: typeID, anchor: anchor)) { deleted += 1 }
        return deleted
    }

    /// Moves one sample to the tombstones (a correlation takes its children along, docs/semantics.md §8.3,
    /// a series sample its points);
    /// false when it is already gone (a child deleted with its parent earlier in the same call).
    /// Unless `replaced` (a sync-version successor then takes its place, SaveOperation), the
    /// correlation and workouts that held it lose it and are reported again.
    @discardableResult
    func deleteRow(owner: Int64, _ key: RowKey, replaced: Bool = false) throws(HealthError) -> Bool {
        let anchor = key.anchor
        let row = try db.prepare("""
            SELECT s.uuid, s.type, s.start_time, s.end_time, s.source, s.revision, s.device, s.parent, s.sync_id, s.sync_version,
                   s.flags, w.activity_type
            FROM samples s LEFT JOIN workouts w ON w.owner = s.owner AND w.anchor = s.anchor
            WHERE s.owner = ? AND s.type = ? AND s.anchor = ?
            """)
        row.bind(all: [.int(owner), .int(key.type), .int(anchor)])
        guard try row.step() else { return false }
        let flags = row.int(10)
        let syncID = row.text(8), syncVersion = row.optionalInt(9)
        var syncMetadata = Metadata()
        if let syncID, let syncVersion {
            syncMetadata[MetadataKey.syncIdentifier] = .string(syncID)
            syncMetadata[MetadataKey.syncVersion] = .int(syncVersion)
        }
        let tombstone = try db.prepare("""
            INSERT INTO tombstones (owner, anchor, uuid, type, start_time, end_time, source, revision, device, parent,
                                    sync_id, sync_version, metadata, deleted, live_anchor, activity_type)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        tombstone.bind(1, owner)
        tombstone.bind(2, try nextAnchor(owner: owner))
        tombstone.bind(3, row.blob(0))
        tombstone.bind(4, row.int(1))
        tombstone.bind(5, row.int(2))
        tombstone.bind(6, row.int(3))
        tombstone.bind(7, row.int(4))
        tombstone.bind(8, row.int(5))
        tombstone.bind(9, row.optionalInt(6))
        tombstone.bind(10, row.optionalInt(7))
        tombstone.bind(11, syncID)
        tombstone.bind(12, syncVersion)
        tombstone.bind(13, MetadataCoding.encode(syncMetadata))
        tombstone.bind(14, now)
        tombstone.bind(15, anchor)
        tombstone.bind(16, row.optionalInt(11))
        let type = try registry.type(row.int(1), owner: owner, db), bundle = try registry.bundleID(row.int(4), owner: owner, db)
        let span = TimeSpan(start: row.int(2), end: row.int(3))
        let uuid = row.uuid(0), parent = row.optionalInt(7)
        row.reset()
        try tombstone.run()
        noteChange(owner: owner, type: type, span: span, bundleID: bundle)

        let delete = try db.prepare("DELETE FROM samples WHERE owner = ? AND type = ? AND anchor = ?")
        delete.bind(all: [.int(owner), .int(key.type), .int(anchor)])
        try delete.run()
        try forgetUUID(owner: owner, uuid, type: key.type, anchor: anchor)
        if !replaced {
            let holders = try moveWorkoutAssociations(owner: owner, from: uuid, to: nil)
            for holder in holders + (parent.map { [$0] } ?? []) { try reanchor(owner: owner, holder, bundleID: bundle) }
        }
        if flags & SampleRows.correlation != 0 {
            let children = try db.prepareOnce("SELECT type, anchor FROM samples WHERE owner = ? AND parent = ?")
            children.bind(1, owner)
            children.bind(2, anchor)
            var childRows: [RowKey] = []
            while try children.step() { childRows.append(RowKey(type: children.int(0), anchor: children.int(1))) }
            for child in childRows { try deleteRow(owner: owner, child) }
        }
        if flags & SampleRows.quantitySeries != 0 {
            try QuantitySeriesRows(db: db).delete(owner: owner, uuid: uuid)
        }
        if flags & SampleRows.series != 0 {
            try SeriesChunks(db: db).delete(owner: owner, series: uuid)
        }
        if flags & SampleRows.workout != 0 {
            for sql in ["DELETE FROM workouts WHERE owner = ? AND anchor = ?", "DELETE FROM workout_samples WHERE owner = ? AND workout = ?"] {
                let statement = try db.prepare(sql)
                statement.bind(1, owner)
                statement.bind(2, anchor)
                try statement.run()
            }
        }
        if flags & SampleRows.detail != 0 {
            let statement = try db.prepare("DELETE FROM sample_details WHERE owner = ? AND anchor = ?")
            statement.bind(all: [.int(owner), .int(anchor)])
            try statement.run()
            try SeriesChunks(db: db).delete(owner: owner, series: uuid)
        }
        return true
    }
}
