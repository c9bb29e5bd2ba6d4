import Foundation
import HealthModel

/// Where SQLite keeps each sample's UUID (`SQLDialect.keepsUUIDLevels`): three narrow tables keyed by
/// (head, owner, type, anchor), where the head is the UUID's first 8 bytes and (type, anchor) its
/// sample's key, together the view `sample_uuids`. A level row says "this sample's UUID begins so";
/// whether the owner holds a UUID is whether a row of its (head, owner) points at a sample whose
/// `uuid` is it: the full UUID is stored once, in the sample's row. Two UUIDs may share a head (the
/// rows then differ in their type and anchor); every lookup and the claim check the sample's `uuid`.
/// New UUIDs enter the small recent level, so a commit dirties only its few hundred leaves; the writer
/// moves levels on in bulk and in key order, never touching `samples`: the recent level whole into the
/// middle one, and before that one head range of the middle level into the big merged level, so a move
/// rewrites a bounded share of each and never stalls a commit for the whole store.
enum UUIDLevels {
    static let recent = "uuids_recent", middle = "uuids_middle", merged = "uuids_merged"
    /// The three levels as one relation, for lookups.
    static let all = "sample_uuids"
    /// Recent-level rows before the levels move on: a 5,000-sample commit dirties at most its ~300
    /// leaves, and a move rewrites the middle level once per this many samples.
    static let recentLimit = 65_536
    /// Head ranges of the middle level, one moved to the merged level per move of the recent level: each
    /// row waits at most this many moves in the middle level (at most 16 × 65,536 ≈ 1M rows there).
    static let slices = 16

    /// The level key's head of `uuid`: its first 8 bytes, a blob (as many bytes in a record as a 64-bit
    /// integer, and `substr(uuid, 1, 8)` in SQL, so every lookup from a stored or bound UUID stays SQL).
    static func head(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0.prefix(8)) }
    }

    /// Inserts into the recent level each of `rows` rows (head, owner, type, anchor, probe) whose head
    /// neither older level holds for its owner; each is probed by its primary key's (head, owner) for
    /// the row's `probe`: its head when `UUIDFilter` says a level may hold it, else NULL, which SQLite's
    /// join checks before it seeks (`IsNull`) and so costs no descent into any level. The recent level
    /// itself is probed before the claim (`claimUUIDs`, a row whose head it holds is bound as a NULL
    /// head): a statement that reads the table it inserts into has SQLite gather all its rows in a
    /// temporary B-tree first, an insert and a read more a row and a temporary database opened and
    /// closed a statement, more than the claim's own insert. A row with a head hit is left for
    /// `claimUUIDs` to decide against the pointed samples' UUIDs, and so is a row of a NULL head (a UUID
    /// repeated in the rows, or a head the recent level holds); two distinct UUIDs sharing a head both go
    /// in, as rows of different anchors (every probe reads the levels as they were before the claim:
    /// it writes neither older level, and the recent level was probed before it ran). Left joins rather
    /// than NOT EXISTS: SQLite runs a correlated subquery as a subroutine that opens its cursor again
    /// for every row (an allocation and a descent from the root each time), where a join opens each
    /// level once. `OR FAIL`, as for the samples' insert: an `ABORT` statement of several rows opens a
    /// statement journal, copying every page it touches first; a failing claim fails its job, and the
    /// job's savepoint or the whole transaction is rolled back with it anyway.
    static func claimSQL(rows: Int) -> String {
        """
        INSERT OR FAIL INTO \(recent) (head, owner, type, anchor) SELECT v.column1, v.column2, v.column3, v.column4
        FROM (VALUES \(Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))) v
        LEFT JOIN \(middle) m ON m.head = v.column5 AND m.owner = v.column2
        LEFT JOIN \(merged) g ON g.head = v.column5 AND g.owner = v.column2
        WHERE v.column1 IS NOT NULL AND m.head IS NULL AND g.head IS NULL
        """
    }

    /// Whether the recent level holds a head for an owner (`claimUUIDs`, before the claim).
    static let recentHeadSQL = "SELECT 1 FROM \(recent) WHERE head = ?1 AND owner = ?2 LIMIT 1"

    /// One row into the recent level: a UUID whose head a level holds for another of the owner's UUIDs.
    static let claimOneSQL = "INSERT OR FAIL INTO \(recent) (head, owner, type, anchor) VALUES (substr(?1, 1, 8), ?2, ?3, ?4)"

    /// A move's first half: one slice of the middle level (its bounds the two parameters) into the merged
    /// one. `OR FAIL` keeps SQLite from journalling the merged level's changed leaves per statement (see
    /// `claimSQL`); a failed move fails its transaction.
    static let sliceMoveSQL = [
        "INSERT OR FAIL INTO \(merged) SELECT \(columns) FROM \(middle) WHERE head >= ? AND head < ? ORDER BY \(columns)",
        "DELETE FROM \(middle) WHERE head >= ? AND head < ?",
    ]
    /// A move's second half: the whole recent level into the middle one. Without a WHERE, SQLite clears
    /// the recent level's pages instead of deleting row by row.
    static let recentMoveSQL = [
        "INSERT OR FAIL INTO \(middle) SELECT \(columns) FROM \(recent) ORDER BY \(columns)",
        "DELETE FROM \(recent)",
    ]
    private static let columns = "head, owner, type, anchor"
    /// Counts a move and returns how many came before it, whose remainder by `slices` is the slice it
    /// takes. Kept in the file (schema step 17), in the move's transaction: a count in memory began
    /// at the first slice at every open, so a server restarted every few moves kept moving the first
    /// slices and never the rest, and the middle level grew with the store.
    static let countMoveSQL = "UPDATE store_info SET uuid_level_moves = uuid_level_moves + 1 WHERE id = 1 RETURNING uuid_level_moves - 1"
    /// Rows the filter's build reads per statement, each statement its own read transaction.
    static let filterChunkRows = 65_536

    /// A filter holding every (owner, head) the levels hold, sized for a quarter more. Read level by
    /// level in the direction UUIDs move (recent, middle, merged), each in key order a chunk at a time
    /// from where the last chunk ended, each chunk its own short read transaction, so the build never
    /// keeps the WAL from being checkpointed for the seconds it takes, while the writer commits and
    /// moves the levels on: a row that moves between two chunks moves into a level still to be read,
    /// so every head stored when the build began is read at least once. What is claimed after it
    /// began the writer adds itself (`UUIDFilterBuild.claimed`).
    static func filter(reading db: Database, chunkRows: Int = filterChunkRows) throws(HealthError) -> UUIDFilter {
        let count = try db.prepareOnce("SELECT (SELECT count(*) FROM \(recent)) + (SELECT count(*) FROM \(middle)) + (SELECT count(*) FROM \(merged))")
        _ = try count.step()
        let filter = UUIDFilter(capacity: Int(count.int(0)) * 5 / 4)
        count.reset()
        for level in [recent, middle, merged] {
            // Resumes after the last (head, owner) read: the rows it skips of that pair are the same filter entry.
            let chunk = try db.prepare("SELECT head, owner FROM \(level) WHERE (head, owner) > (?, ?) ORDER BY head, owner LIMIT \(chunkRows)")
            // Below every stored key: a zero-length blob sorts before every head.
            var after = (head: Data(), owner: Int64.min)
            var rows = chunkRows
            while rows == chunkRows {
                chunk.reset()
                chunk.bind(1, after.head)
                chunk.bind(2, after.owner)
                rows = 0
                while try chunk.step() {
                    let head = chunk.blob(0) ?? Data(), owner = chunk.int(1)
                    filter.insert(owner: owner, head: head)
                    rows += 1
                    if rows == chunkRows { after = (head, owner) }
                }
            }
            chunk.reset()
        }
        return filter
    }

    /// The blob bounds of slice `index`: heads whose first byte falls in its sixteenth of 0…255.
    static func bounds(of index: Int) -> (lower: Data, upper: Data) {
        let width = 256 / slices
        let upper = index + 1 < slices ? Data([UInt8((index + 1) * width)]) : Data(repeating: 0xFF, count: 9)
        return (Data([UInt8(index * width)]), upper)
    }
}

extension WriteContext {
    /// Whether each row's UUID is now its sample's: true for those the owner holds in no level, which
    /// enter the recent level; false for a UUID already stored or taken by an earlier row (a retry or a
    /// refused reuse, for the caller to tell apart). One statement for all rows, which claims every row
    /// whose head no level holds; each row it left (a head hit: a retry, or another UUID of the same
    /// head) is then decided by the sample its level rows point at. On PostgreSQL the samples' unique
    /// index decides on insert instead, so every row passes.
    func claimUUIDs(_ rows: [SampleRow]) throws(HealthError) -> [Bool] {
        guard db.dialect.keepsUUIDLevels, !rows.isEmpty else { return Array(repeating: true, count: rows.count) }
        let filter = try currentUUIDFilter()
        let building = filter == nil ? uuidFilterBuild : nil
        let claim = try prepared(.uuidClaim, rows: rows.count)
        // Each head is the first 8 bytes of its UUID copied in here, bound in place as the row's head and probe.
        var bytes = BindingBytes(uuids: rows.count)
        // Every parameter is bound below; on the way out, whether it ran or threw, the claim's bindings
        // are cleared before the bytes they point at are freed (defers run last first).
        claim.rewind()
        defer { bytes.deallocate() }
        defer { claim.reset() }
        // A UUID repeated in the rows: its later rows bind a NULL head, which the claim skips (the levels'
        // key would take both, as rows of different anchors). Only a row whose head the filter may hold
        // can repeat an earlier one (that one's head went into the filter before it), so the rows' set is
        // made at the first such row: with a filter, rarely; without one (while it is built), at once.
        var repeated: [Bool]?
        var earlier: Set<Owned<UUID>>?
        for (offset, row) in rows.enumerated() {
            let base = Int32(offset * 5)
            let mayBeHeld = filter?.mayContain(owner: row.owner, row.uuid) ?? true
            if mayBeHeld && earlier == nil { earlier = Set(rows[..<offset].map { Owned(owner: $0.owner, value: $0.uuid) }) }
            if earlier?.insert(Owned(owner: row.owner, value: row.uuid)).inserted == false {
                if repeated == nil { repeated = Array(repeating: false, count: rows.count) }
                repeated?[offset] = true
                for column in 1...5 { claim.bind(base + Int32(column), nil as Int64?) }
                continue
            }
            let head = UnsafeRawBufferPointer(rebasing: bytes.copy(row.uuid).prefix(8))
            if mayBeHeld, try recentLevelHolds(head, owner: row.owner) {
                // A head hit in the recent level: skipped by the claim, decided after it.
                for column in 1...5 { claim.bind(base + Int32(column), nil as Int64?) }
            } else {
                claim.bind(base + 1, borrowing: head, text: false)
                claim.bind(base + 2, row.owner)
                claim.bind(base + 3, row.type)
                claim.bind(base + 4, row.anchor)
                // A NULL probe: certainly in no level. No filter: it may be in any.
                if mayBeHeld { claim.bind(base + 5, borrowing: head, text: false) } else { claim.bind(base + 5, nil as Data?) }
            }
            // Before the claim runs: whatever part of it commits is then in the filter, or in the one
            // being built once the writer takes it.
            filter?.insert(owner: row.owner, row.uuid)
            building?.claimed.append((row.owner, row.uuid))
        }
        try claim.run()
        let claimed = db.changes
        recentUUIDs = recentUUIDs.map { $0 + claimed }
        guard claimed < rows.count else { return Array(repeating: true, count: rows.count) }
        let inRecent = try db.prepare("SELECT 1 FROM \(UUIDLevels.recent) WHERE head = substr(?1, 1, 8) AND owner = ?2 AND type = ?3 AND anchor = ?4")
        var result: [Bool] = []
        for (offset, row) in rows.enumerated() {
            if repeated?[offset] == true {
                result.append(false)
                continue
            }
            inRecent.reset()
            inRecent.bind(all: [.uuid(row.uuid), .int(row.owner), .int(row.type), .int(row.anchor)])
            let claimedHere = try inRecent.step()
            result.append(try claimedHere ? true : claimAfterHeadHit(row))
        }
        inRecent.reset()
        return result
    }

    /// Whether the recent level holds `head` for `owner`.
    private func recentLevelHolds(_ head: UnsafeRawBufferPointer, owner: Int64) throws(HealthError) -> Bool {
        let probe = try db.prepare(UUIDLevels.recentHeadSQL)
        defer { probe.reset() }
        probe.bind(1, borrowing: head, text: false)
        probe.bind(2, owner)
        return try probe.step()
    }

    /// Claims the UUID of `row`, whose head a level holds for its owner, unless that is the UUID's own
    /// row: false when a sample of the owner has the UUID.
    private func claimAfterHeadHit(_ row: SampleRow) throws(HealthError) -> Bool {
        let held = try db.prepare("SELECT 1 FROM samples WHERE \(db.dialect.sampleByUUID())")
        held.bind(all: [.int(row.owner), .uuid(row.uuid)])
        let stored = try held.step()
        held.reset()
        if stored { return false }
        let insert = try db.prepare(UUIDLevels.claimOneSQL)
        insert.bind(all: [.uuid(row.uuid), .int(row.owner), .int(row.type), .int(row.anchor)])
        try insert.run()
        recentUUIDs = recentUUIDs.map { $0 + 1 }
        return true
    }

    /// Starts building the filter (`UUIDFilterBuild`) from a connection `uuidFilterSource` opens, when
    /// there is one; the claim seeks every level until the writer takes the filter.
    func startUUIDFilterBuild() throws(HealthError) {
        guard let source = uuidFilterSource else { return }
        uuidFilter = nil
        uuidFilterBuild = UUIDFilterBuild(version: try storeVersion(), connect: source.connect, pause: source.pause)
    }

    /// The filter the claim may trust in the running transaction, nil while one is being built: the
    /// writer takes a finished build's filter (adding what it claimed meanwhile), and starts another
    /// when another connection committed since the filter's build began (SQLite's `data_version`,
    /// which a connection's own commits leave alone): its claims are not in the filter. Checked once per
    /// transaction, which holds the write lock from its start (`BEGIN IMMEDIATE`). A failed build
    /// leaves no filter until the next open (its note says why).
    func currentUUIDFilter() throws(HealthError) -> UUIDFilter? {
        if uuidFilterChecked { return uuidFilter }
        if let build = uuidFilterBuild, let built = build.take() {
            uuidFilterBuild = nil
            if case .success(let filter) = built {
                for pair in build.claimed { filter.insert(owner: pair.owner, pair.uuid) }
                uuidFilter = filter
                uuidFilterVersion = build.version
            }
        }
        if uuidFilter != nil, try storeVersion() != uuidFilterVersion { try startUUIDFilterBuild() }
        uuidFilterChecked = true
        return uuidFilter
    }

    private func storeVersion() throws(HealthError) -> Int64 {
        let version = try db.prepare("PRAGMA data_version")
        defer { version.reset() }
        _ = try version.step()
        return version.int(0)
    }

    /// Removes a deleted sample's level row (its UUID, type and anchor) from whichever level holds it, so
    /// the UUID may be saved again, as with PostgreSQL's unique index.
    func forgetUUID(owner: Int64, _ uuid: UUID, type: Int64, anchor: Int64) throws(HealthError) {
        try inEveryLevel("DELETE FROM %@ WHERE head = substr(?1, 1, 8) AND owner = ?2 AND type = ?3 AND anchor = ?4",
                         [.uuid(uuid), .int(owner), .int(type), .int(anchor)])
    }

    /// Points a sample's level row at its new anchor (a correlation or workout moved to a later one).
    func reanchorUUID(owner: Int64, _ uuid: UUID, type: Int64, from old: Int64, to anchor: Int64) throws(HealthError) {
        try inEveryLevel("UPDATE %@ SET anchor = ?1 WHERE head = substr(?2, 1, 8) AND owner = ?3 AND type = ?4 AND anchor = ?5",
                         [.int(anchor), .uuid(uuid), .int(owner), .int(type), .int(old)])
    }

    /// Runs `sql` with `%@` naming each level in turn: one of them holds the row.
    private func inEveryLevel(_ sql: String, _ arguments: [SQLValue]) throws(HealthError) {
        guard db.dialect.keepsUUIDLevels else { return }
        for level in [UUIDLevels.recent, UUIDLevels.middle, UUIDLevels.merged] {
            let statement = try db.prepare(sql.replacingOccurrences(of: "%@", with: level))
            statement.bind(all: arguments)
            try statement.run()
        }
    }

    /// Moves the levels on once the recent level is full; run inside the transaction about to commit, so a
    /// move commits with it or not at all.
    func moveUUIDLevelsIfDue() throws(HealthError) {
        guard db.dialect.keepsUUIDLevels, try recentUUIDCount() >= uuidRecentLimit else { return }
        try moveUUIDLevels()
    }

    /// One slice of the middle level into the merged one, then the whole recent level into the middle one
    /// (so what enters the middle level now stays there for a whole round of slices). Each move is an
    /// insert in key order and a delete of what was moved: every row is in exactly one level before and after.
    func moveUUIDLevels() throws(HealthError) {
        guard let moves = try db.prepare(UUIDLevels.countMoveSQL).insertReturning() else {
            throw HealthError(.databaseInaccessible, "the store has no store_info row")
        }
        let (lower, upper) = UUIDLevels.bounds(of: Int(moves % Int64(UUIDLevels.slices)))
        for sql in UUIDLevels.sliceMoveSQL {
            let statement = try db.prepare(sql)
            statement.bind(all: [.blob(lower), .blob(upper)])
            try statement.run()
        }
        try db.execute(UUIDLevels.recentMoveSQL.joined(separator: ";\n"))
        recentUUIDs = 0
    }

    /// Rows in the recent level, counted once per writer and after a transaction failed (the count is
    /// kept in memory only to know when to move the levels on).
    private func recentUUIDCount() throws(HealthError) -> Int {
        if let known = recentUUIDs { return known }
        let count = try db.prepare("SELECT count(*) FROM \(UUIDLevels.recent)")
        defer { count.reset() }
        _ = try count.step()
        recentUUIDs = Int(count.int(0))
        return Int(count.int(0))
    }
}
