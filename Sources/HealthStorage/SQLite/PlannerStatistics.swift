import HealthModel

/// What the query planner assumes about the data, instead of SQLite's defaults, which take
/// `owner = ?` for as selective as any other equality and so prefer scanning an owner's whole
/// primary-key range to every index (children by parent, UUID lists, one type's rows). These
/// figures describe the shape the indexes are made for: many rows per owner, tens of types,
/// a few sources per type, unique UUIDs and anchors, a handful of readings per correlation.
/// Pinned rather than measured, so plans do not change with the data.
enum PlannerStatistics {
    static let rows: [(table: String, index: String, stat: String)] = [
        ("samples", "samples", "1000000 1000000 20000 1"),
        ("uuids_recent", "uuids_recent", "65536 1 1 1 1"),
        ("uuid_runs", "uuid_runs_by_head", "10000 1000 1"),
        ("samples", "samples_by_source", "1000000 1000000 20000 5000 2 1"),
        ("samples", "samples_by_sync_id", "100000 100000 1 1"),
        ("samples", "samples_by_parent", "100000 100000 3 1"),
        ("samples", "samples_by_reading", "100000 100000 5000 1 1"),
        ("tombstones", "tombstones", "100000 100000 1"),
        ("tombstones", "tombstones_by_type", "100000 100000 2000 1"),
        ("tombstones", "tombstones_by_source", "100000 100000 2000 500 1"),
        ("tombstones", "tombstones_by_parent", "10000 10000 3 1"),
        ("tombstones", "tombstones_by_live_anchor", "10000 10000 1 1"),
        ("workout_samples", "workout_samples", "100000 100000 20 1"),
        ("workout_samples", "workout_samples_by_sample", "100000 100000 1 1"),
    ]

    /// Writes the figures unless the file already holds exactly these (a new file, a schema step or a
    /// manual ANALYZE changes them), so opening an unchanged store writes nothing and works on a full
    /// disk. The connection's planner then reloads them.
    static func install(_ db: SQLiteConnection) throws(HealthError) {
        if try isInstalled(db) { return }
        try db.execute("BEGIN IMMEDIATE")
        do {
            // ANALYZE of a one-row table creates sqlite_stat1 when missing.
            try db.execute("ANALYZE store_info; DELETE FROM sqlite_stat1")
            let insert = try db.prepareOnce("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)")
            for row in rows {
                insert.reset()
                insert.bind(1, row.table)
                insert.bind(2, row.index)
                insert.bind(3, row.stat)
                try insert.run()
            }
            try db.execute("COMMIT")
        } catch {
            if db.inTransaction { try? db.execute("ROLLBACK") }
            throw error
        }
        try db.execute("ANALYZE sqlite_schema")
    }

    private static func isInstalled(_ db: SQLiteConnection) throws(HealthError) -> Bool {
        let table = try db.prepareOnce("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'")
        guard try table.step() else { return false }
        let stored = try db.prepareOnce("SELECT tbl, idx, stat FROM sqlite_stat1")
        var found: [String] = []
        while try stored.step() {
            found.append([stored.text(0), stored.text(1), stored.text(2)].map { $0 ?? "" }.joined(separator: "|"))
        }
        let wanted: [String] = rows.map { row in [row.table, row.index, row.stat].joined(separator: "|") }
        return found.sorted() == wanted.sorted()
    }
}
