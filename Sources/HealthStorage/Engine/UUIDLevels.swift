import Foundation
import HealthModel

/// Where SQLite keeps each sample's UUID (`SQLDialect.keepsUUIDLevels`): entries (head, owner, type,
/// anchor), where the head is the UUID's first 8 bytes and (type, anchor) its sample's key. An entry says
/// "this sample's UUID begins so"; whether the owner holds a UUID is whether an entry of its (head,
/// owner) points at a sample whose `uuid` is it: the full UUID is stored once, in the sample's row. Two
/// UUIDs may share a head (their entries then differ in type and anchor); every lookup and the claim
/// check the sample's `uuid`. New entries go into the recent level, a small B-tree where a commit's
/// heads land in the few hundred leaves it dirties. When it fills, it becomes one sorted run, and runs
/// of a level merge `runFanout` at a time into one of the next level (an LSM tree of sorted arrays):
/// a run is rows of `uuid_runs` (run, first head, packed entries, `UUIDRunBlock`) listed in
/// `uuid_run_dir`, so an entry costs its packed bytes once a level instead of a B-tree insert at a
/// random place (bench/history/2026-12-03-layouts.md). The writer merges a slice at a time between
/// commits, so no commit rewrites the whole store. SQL reads every level through the eponymous
/// virtual table `uuid_keys` (`UUIDKeysTable`).
enum UUIDLevels {
    static let recent = "uuids_recent", runs = "uuid_runs", directory = "uuid_run_dir"
    /// Every level as one relation (head, owner, type, anchor), for lookups by head and owner.
    static let all = "uuid_keys"
    /// Recent-level rows before they become a run. New heads are random, so a commit dirties nearly
    /// every leaf of the recent level up to its own number of UUIDs, and each dirty page is a WAL frame
    /// written and checksummed at commit: at 65,536 rows (≈ 160 leaves when full) a commit of ≈ 110
    /// lone saves wrote ≈ 72 frames, 0.65 a save; at 8,192 (≈ 20 leaves) about half as many
    /// (bench/history/2026-12-03-savecpu9.md). Each entry is written once more in all (one more level
    /// of runs, 8,192 × 8ⁿ entries a run of level n), sequentially, in merge slices. At 2,048 a commit
    /// wrote ≈ 19 frames instead of ≈ 27 but the writer only ≈ 1 µs a save less, while a retry's lookup,
    /// which reads one row of every run, cost ≈ 10 µs more (bench/history/2026-12-04-recent.md). The
    /// limit is the writer's, never stored: a store written under another keeps its runs.
    static let recentLimit = 8_192
    /// Objects a batch holds at least for its samples' UUIDs to be claimed as a run of their own
    /// (`WriteContext.bulkClaims`) instead of rows of the recent level: a bulk save's thousands of random
    /// heads were each a B-tree insert there (a fifth of the storage bench's stream CPU), then read back,
    /// rewritten as a run and deleted when the level filled (bench/history/2026-12-04-bulkrun.md).
    static let runClaimRows = 1_024
    /// Runs of a level merged into one run of the next.
    static let runFanout = 8
    /// Entries a merge writes per transaction, at most (it ends a slice between two heads).
    static let mergeSliceEntries = 65_536
    /// Entries a commit's merge slice writes for each UUID the commit claimed, and at least
    /// `mergeSliceFloor`: a merge keeps pace with the UUIDs that make merges due (each entry is written
    /// once a level, a few times over), while a commit of lone saves carries a slice of a few rows rather
    /// than one of up to `mergeSliceEntries`, which held every save of the commit and those queued
    /// behind it (bench/history/2026-12-03-p99merge.md). Bulk saves' commits still take whole slices.
    static let mergeSharePerClaim = 16, mergeSliceFloor = 2_048

    /// The entries a commit that claimed `claimed` UUIDs merges (it ends its slice at the first row
    /// boundary after them, so the output's rows stay whole).
    static func mergeShare(claimed: Int) -> Int { max(mergeSliceFloor, claimed * mergeSharePerClaim) }
    /// Entries a slice merged while the writer is idle writes (it too ends at a row boundary after them).
    /// Those slices commit without waiting for the disk, so a lone device's saves no longer carry a
    /// `mergeSliceFloor` slice each, with its pages synced, while a merge runs (≈ 4 ms a save,
    /// bench/history/2026-12-03-p99merge.md).
    static let idleMergeSliceEntries = mergeSliceFloor
    /// Bytes of a run's row at most: within one 8 KiB page of a rowid table, so a row is read from one
    /// leaf page (`WITHOUT ROWID` would move all but ~2 KB of it to overflow pages).
    static let runRowBytes = 7_900

    /// The level key's head of `uuid`: its first 8 bytes, a blob (as many bytes in a record as a 64-bit
    /// integer, and `substr(uuid, 1, 8)` in SQL, so every lookup from a stored or bound UUID stays SQL).
    static func head(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0.prefix(8)) }
    }

    /// Inserts into the recent level each of `rows` rows (head, owner, type, anchor) whose head is not
    /// NULL: `claimUUIDs` binds a NULL head for a row it decides itself (a UUID repeated in the rows, or
    /// a head some level holds for the owner). `OR FAIL`, as for the samples' insert: an `ABORT`
    /// statement of several rows opens a statement journal, copying every page it touches first; a
    /// failing claim fails its job, and the job's savepoint or the whole transaction is rolled back with
    /// it anyway.
    static func claimSQL(rows: Int) -> String {
        """
        INSERT OR FAIL INTO \(recent) (head, owner, type, anchor) SELECT column1, column2, column3, column4
        FROM (VALUES \(Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", "))) WHERE column1 IS NOT NULL
        """
    }

    /// The keys of the samples whose UUIDs an owner's head begins (`claimUUIDs`, before the claim).
    static let heldKeysSQL = "SELECT type, anchor FROM \(all) WHERE head = ?1 AND owner = ?2"

    /// One row into the recent level: a UUID whose head a level holds for another of the owner's UUIDs.
    static let claimOneSQL = "INSERT OR FAIL INTO \(recent) (head, owner, type, anchor) VALUES (substr(?1, 1, 8), ?2, ?3, ?4)"

    /// The row of each run that may hold the head `?1` (the one of the greatest first head at or below
    /// it), with the cursor of the merge writing its run when the run is a merge's input (column 2, else
    /// NULL): that merge's output already holds the input's entries up to its cursor.
    static let rowsMayHoldSQL = """
        SELECT r.id, r.data, o.cursor FROM \(directory) d
        JOIN \(runs) r ON r.id = (SELECT id FROM \(runs) WHERE run = d.run AND first_head <= ?1 ORDER BY first_head DESC LIMIT 1)
        LEFT JOIN \(directory) o ON o.run = d.merge_into
        """
    /// Every row of every run, with its merge's cursor as in `rowsMayHoldSQL`.
    static let allRowsSQL = """
        SELECT r.id, r.data, o.cursor FROM \(directory) d JOIN \(runs) r ON r.run = d.run LEFT JOIN \(directory) o ON o.run = d.merge_into
        """
    /// Rows the filter's build reads per statement, each statement its own read transaction.
    static let filterChunkRows = 65_536

    /// A filter holding every (owner, head) the levels hold, sized for a quarter more. Reads the recent
    /// level in key order, then the runs' rows in the order they were written (`uuid_runs.id`, never
    /// reused), a chunk at a time from where the last chunk ended, each chunk its own short read
    /// transaction, so the build never keeps the WAL from being checkpointed for the seconds it takes,
    /// while the writer commits and merges: an entry that moves between two chunks moves into a row
    /// written later, so every head stored when the build began is read at least once. What is claimed
    /// after it began the writer adds itself (`UUIDFilterBuild.claimed`).
    static func filter(reading db: Database, chunkRows: Int = filterChunkRows) throws(HealthError) -> UUIDFilter {
        let count = try db.prepareOnce("SELECT (SELECT count(*) FROM \(recent)) + (SELECT coalesce(sum(entries), 0) FROM \(directory))")
        _ = try count.step()
        let filter = UUIDFilter(capacity: Int(count.int(0)) * 5 / 4)
        count.reset()
        // Resumes after the last (head, owner) read: the rows it skips of that pair are the same filter entry.
        let chunk = try db.prepare("SELECT head, owner FROM \(recent) WHERE (head, owner) > (?, ?) ORDER BY head, owner LIMIT \(chunkRows)")
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
        // A run's row holds hundreds of entries.
        let runRows = max(1, chunkRows / 256)
        let runChunk = try db.prepare("SELECT id, data FROM \(runs) WHERE id > ? ORDER BY id LIMIT \(runRows)")
        var afterID: Int64 = 0
        rows = runRows
        while rows == runRows {
            runChunk.reset()
            runChunk.bind(1, afterID)
            rows = 0
            while try runChunk.step() {
                for entry in UUIDRunBlock.decode(runChunk.blob(1) ?? Data()) { filter.insert(owner: entry.owner, head: entry.head) }
                afterID = runChunk.int(0)
                rows += 1
            }
        }
        runChunk.reset()
        return filter
    }

    /// Packs the entries `select` reads (head, owner, type, anchor, in key order) into a new run of
    /// `level`, or of the level its size belongs to when nil (schema step 20 packs the old levels so);
    /// returns how many (none: no run).
    @discardableResult
    static func writeRun(_ db: Database, level: Int64?, from select: String) throws(HealthError) -> Int {
        try writeRun(db, level: level) { (writer: inout UUIDRunWriter) throws(HealthError) in
            let rows = try db.prepareOnce(select)
            while try rows.step() {
                guard let head = rows.blob(0).flatMap(UUIDEntry.head) else { continue }
                try writer.append(UUIDEntry(head: head, owner: rows.int(1), type: rows.int(2), anchor: rows.int(3)))
            }
        }
    }

    /// Packs `entries`, in key order, into a new run as `writeRun(_:level:from:)` does.
    @discardableResult
    static func writeRun(_ db: Database, level: Int64?, entries: [UUIDEntry]) throws(HealthError) -> Int {
        try writeRun(db, level: level) { (writer: inout UUIDRunWriter) throws(HealthError) in
            for entry in entries { try writer.append(entry) }
        }
    }

    /// A new run of the entries `append` gives its writer, listed in the directory unless there are none.
    private static func writeRun(_ db: Database, level: Int64?,
                                 _ append: (inout UUIDRunWriter) throws(HealthError) -> Void) throws(HealthError) -> Int {
        let run = try nextRun(db)
        var writer = UUIDRunWriter(db: db, run: run)
        try append(&writer)
        try writer.flush()
        guard writer.written > 0 else { return 0 }
        var (sized, capacity): (Int64, Int) = (0, recentLimit)
        while capacity < writer.written { (sized, capacity) = (sized + 1, capacity * runFanout) }
        let entry = try db.prepare("INSERT INTO \(directory) (run, level, entries) VALUES (?, ?, ?)")
        entry.bind(all: [.int(run), .int(level ?? sized), .int(Int64(writer.written))])
        try entry.run()
        return writer.written
    }

    /// A run id no run has.
    static func nextRun(_ db: Database) throws(HealthError) -> Int64 {
        let next = try db.prepare("SELECT coalesce(max(run), 0) + 1 FROM \(directory)")
        defer { next.reset() }
        _ = try next.step()
        return next.int(0)
    }
}

extension WriteContext {
    /// Whether each row's UUID is now its sample's: true for those the owner holds in no level, which
    /// enter the recent level (or, within `bulkClaims`, the pending run); false for a UUID already stored
    /// or taken by an earlier row (a retry or a refused reuse, for the caller to tell apart). One
    /// statement inserts every row whose head no level holds: only a row `UUIDFilter` says may be held is
    /// looked up first (`uuid_keys`: the recent level's B-tree and one row of each run), and a row whose
    /// head some level holds (a retry, or another UUID of the same head) is then decided by the sample
    /// its entries point at. On PostgreSQL the samples' unique index decides on insert instead, so every
    /// row passes.
    func claimUUIDs(_ rows: [SampleRow]) throws(HealthError) -> [Bool] {
        guard db.dialect.keepsUUIDLevels, !rows.isEmpty else { return Array(repeating: true, count: rows.count) }
        let filter = try currentUUIDFilter()
        let building = filter == nil ? uuidFilterBuild : nil
        let claim = pendingRun == nil ? try prepared(.uuidClaim, rows: rows.count) : nil
        // Each head is the first 8 bytes of its UUID copied in here, bound in place.
        var bytes = BindingBytes(uuids: rows.count)
        // Every parameter is bound below; on the way out, whether it ran or threw, the claim's bindings
        // are cleared before the bytes they point at are freed (defers run last first).
        claim?.rewind()
        defer { bytes.deallocate() }
        defer { claim?.reset() }
        // A UUID repeated in the rows: its later rows are refused here (the levels' key would take both,
        // as rows of different anchors). Only a row whose head the filter may hold can repeat an earlier
        // one (that one's head went into the filter before it), so the rows' set is made at the first
        // such row: with a filter, rarely; without one (while it is built), at once.
        var decided: [Bool?] = Array(repeating: true, count: rows.count)
        var headHits: [(offset: Int, keys: [SampleKey])] = []
        heldKeys.removeAll(keepingCapacity: true)
        var earlier: Set<Owned<UUID>>?
        for (offset, row) in rows.enumerated() {
            let base = Int32(offset * 4)
            let mayBeHeld = filter?.mayContain(owner: row.owner, row.uuid) ?? true
            if mayBeHeld && earlier == nil { earlier = Set(rows[..<offset].map { Owned(owner: $0.owner, value: $0.uuid) }) }
            if earlier?.insert(Owned(owner: row.owner, value: row.uuid)).inserted == false {
                decided[offset] = false
                for column in 1...4 { claim?.bind(base + Int32(column), nil as Int64?) }
                continue
            }
            let head = UnsafeRawBufferPointer(rebasing: bytes.copy(row.uuid).prefix(8))
            // A head the pending run holds is looked up once that run is written, as every lookup by UUID is.
            if mayBeHeld, pendingRun?.heads.contains(UUIDEntry.head(row.uuid)) == true { try writePendingRun() }
            if mayBeHeld, case let keys = try keysHeld(head, owner: row.owner), !keys.isEmpty {
                // A head hit: skipped by the claim, decided after it.
                decided[offset] = nil
                headHits.append((offset, keys))
                for column in 1...4 { claim?.bind(base + Int32(column), nil as Int64?) }
            } else if let claim {
                claim.bind(base + 1, borrowing: head, text: false)
                claim.bind(base + 2, row.owner)
                claim.bind(base + 3, row.type)
                claim.bind(base + 4, row.anchor)
            } else {
                pendingRun?.add(UUIDEntry(head: UUIDEntry.head(row.uuid), owner: row.owner, type: row.type, anchor: row.anchor))
            }
            // Before the claim runs: whatever part of it commits is then in the filter, or in the one
            // being built once the writer takes it.
            filter?.insert(owner: row.owner, row.uuid)
            building?.claimed.append((row.owner, row.uuid))
        }
        if let claim {
            try claim.run()
            recentUUIDs = recentUUIDs.map { $0 + db.changes }
        } else if headHits.count + decided.count(where: { $0 == false }) > 0 {
            // Rows decided by their stored samples, found by UUID through the levels, which must then hold
            // every UUID claimed before them.
            try writePendingRun()
        }
        for (offset, keys) in headHits { decided[offset] = try claimAfterHeadHit(rows[offset], keys: keys) }
        return decided.map { $0 ?? false }
    }

    /// Runs `save` with the UUIDs its samples claim gathered in memory, then written as a run of their
    /// own, instead of rows of the recent level: for a batch of `uuidRunClaimRows` objects or more on
    /// SQLite, else runs it as it is. The run is written within the job, so it is undone with it, and
    /// before any lookup by UUID (which reads the levels) could need its entries.
    func bulkClaims<T>(rows: Int, _ save: () throws(HealthError) -> T) throws(HealthError) -> T {
        guard db.dialect.keepsUUIDLevels, rows >= uuidRunClaimRows, pendingRun == nil else { return try save() }
        pendingRun = PendingUUIDRun()
        defer { pendingRun = nil }
        let result = try save()
        try writePendingRun()
        return result
    }

    /// Writes the pending run and stops gathering claims (for an object saved on its own, which may read
    /// by UUID what it claims); returns what to set `pendingRun` back to afterwards.
    func suspendBulkClaims() throws(HealthError) -> PendingUUIDRun? {
        try writePendingRun()
        defer { pendingRun = nil }
        return pendingRun
    }

    /// The pending run's entries, in key order, as a run of the level their number belongs to; it is
    /// empty afterwards. Its UUIDs count with the recent level's toward the transaction's merge share.
    private func writePendingRun() throws(HealthError) {
        guard var run = pendingRun, !run.entries.isEmpty else { return }
        pendingRun = nil
        run.entries.sort()
        claimedAsRuns += try UUIDLevels.writeRun(db, level: nil, entries: run.entries)
        uuidMergeDue = nil
        pendingRun = PendingUUIDRun()
    }

    /// The keys of the samples whose UUIDs begin with `head` for `owner`, as the levels hold them.
    private func keysHeld(_ head: UnsafeRawBufferPointer, owner: Int64) throws(HealthError) -> [SampleKey] {
        let probe = try db.prepare(UUIDLevels.heldKeysSQL)
        defer { probe.reset() }
        probe.bind(1, borrowing: head, text: false)
        probe.bind(2, owner)
        var keys: [SampleKey] = []
        while try probe.step() { keys.append(SampleKey(type: probe.int(0), anchor: probe.int(1))) }
        return keys
    }

    /// Claims the UUID of `row`, whose head the levels hold for its owner at `keys`, unless one of those
    /// is the UUID's own sample: then false, and the key is kept in `heldKeys` for the comparison with
    /// it. Each key is one seek of the samples' primary key, where a lookup by UUID reads every level
    /// again (the recent level and a row of each run; bench/history/2026-12-04-retry.md).
    private func claimAfterHeadHit(_ row: SampleRow, keys: [SampleKey]) throws(HealthError) -> Bool {
        let held = try db.prepare("SELECT 1 FROM samples WHERE owner = ?1 AND type = ?2 AND anchor = ?3 AND uuid = ?4")
        for key in keys {
            held.bind(all: [.int(row.owner), .int(key.type), .int(key.anchor), .uuid(row.uuid)])
            let stored = try held.step()
            held.reset()
            if stored {
                heldKeys[Owned(owner: row.owner, value: row.uuid)] = key
                return false
            }
        }
        let insert = try db.prepare(UUIDLevels.claimOneSQL)
        insert.bind(all: [.uuid(row.uuid), .int(row.owner), .int(row.type), .int(row.anchor)])
        try insert.run()
        recentUUIDs = recentUUIDs.map { $0 + 1 }
        return true
    }

    /// Starts building the filter (`UUIDFilterBuild`) from a connection `uuidFilterSource` opens, when
    /// there is one; the claim looks every UUID up until the writer takes the filter.
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

    /// Removes a deleted sample's entry (its UUID, type and anchor) from whichever level holds it (from
    /// both copies while a merge has copied it), so the UUID may be saved again, as with PostgreSQL's
    /// unique index.
    func forgetUUID(owner: Int64, _ uuid: UUID, type: Int64, anchor: Int64) throws(HealthError) {
        guard db.dialect.keepsUUIDLevels else { return }
        let delete = try db.prepare("DELETE FROM \(UUIDLevels.recent) WHERE head = substr(?1, 1, 8) AND owner = ?2 AND type = ?3 AND anchor = ?4")
        delete.bind(all: [.uuid(uuid), .int(owner), .int(type), .int(anchor)])
        try delete.run()
        let old = UUIDEntry(head: UUIDEntry.head(uuid), owner: owner, type: type, anchor: anchor)
        try rewriteRunRows(holding: old) { $0.filter { $0 != old } }
    }

    /// Points a sample's entry at its new anchor (a correlation or workout moved to a later one).
    func reanchorUUID(owner: Int64, _ uuid: UUID, type: Int64, from old: Int64, to anchor: Int64) throws(HealthError) {
        guard db.dialect.keepsUUIDLevels else { return }
        let update = try db.prepare("""
            UPDATE \(UUIDLevels.recent) SET anchor = ?1 WHERE head = substr(?2, 1, 8) AND owner = ?3 AND type = ?4 AND anchor = ?5
            """)
        update.bind(all: [.int(anchor), .uuid(uuid), .int(owner), .int(type), .int(old)])
        try update.run()
        let head = UUIDEntry.head(uuid)
        let before = UUIDEntry(head: head, owner: owner, type: type, anchor: old)
        let after = UUIDEntry(head: head, owner: owner, type: type, anchor: anchor)
        // The head stays, so the entry stays in its row, which is kept in key order.
        try rewriteRunRows(holding: before) { $0.map { $0 == before ? after : $0 }.sorted() }
    }

    /// Writes back each run's row holding `entry` as `change` makes its entries.
    private func rewriteRunRows(holding entry: UUIDEntry, _ change: ([UUIDEntry]) -> [UUIDEntry]) throws(HealthError) {
        let rows = try db.prepare(UUIDLevels.rowsMayHoldSQL)
        rows.bind(1, UUIDEntry.blob(entry.head))
        var changed: [(id: Int64, data: Data)] = []
        while try rows.step() {
            let entries = UUIDRunBlock.decode(rows.blob(1) ?? Data())
            guard entries.contains(entry) else { continue }
            changed.append((rows.int(0), UUIDRunBlock.encode(change(entries))))
        }
        rows.reset()
        let update = try db.prepare("UPDATE \(UUIDLevels.runs) SET data = ? WHERE id = ?")
        for row in changed {
            update.reset()
            update.bind(all: [.blob(row.data), .int(row.id)])
            try update.run()
        }
    }

    /// Turns a full recent level into a run and merges a slice of runs when a merge is due, its size the
    /// transaction's share (`UUIDLevels.mergeShare`); run inside the transaction about to commit, so each
    /// step commits with it or not at all. A transaction that follows a slice merged while the writer was
    /// idle carries none: the writer is not busy enough to need commits to keep the merge going.
    func moveUUIDLevelsIfDue() throws(HealthError) {
        guard db.dialect.keepsUUIDLevels else { return }
        let recent = try recentUUIDCount()
        let claimed = (recentUUIDsAtBegin.map { recent - $0 } ?? 0) + claimedAsRuns
        if recent >= uuidRecentLimit { try flushRecentLevel() }
        if uuidMergeDue != false && !mergedWhileIdle {
            uuidMergeDue = try mergeUUIDRunSlice(share: UUIDLevels.mergeShare(claimed: claimed))
        }
        (mergedWhileIdle, idleMergeFailed) = (false, false)
    }

    /// Whether the writer, with no job waiting, has a merge slice to do (`mergeWhileIdle`).
    var mergeDueWhileIdle: Bool {
        mergesWhileIdle && db.dialect.keepsUUIDLevels && uuidMergeDue != false && !idleMergeFailed
    }

    /// One slice of the running (or a due) merge, in the writer's idle transaction: `idleMergeSliceEntries`,
    /// small enough that a job arriving meanwhile waits well under a millisecond for it.
    func mergeWhileIdle() throws(HealthError) {
        uuidMergeDue = try mergeUUIDRunSlice(share: UUIDLevels.idleMergeSliceEntries)
        mergedWhileIdle = true
    }

    /// The whole recent level, in key order, into a new run of level 0. Without a WHERE, SQLite clears
    /// the recent level's pages instead of deleting row by row.
    func flushRecentLevel() throws(HealthError) {
        try UUIDLevels.writeRun(db, level: 0, from: "SELECT head, owner, type, anchor FROM \(UUIDLevels.recent) ORDER BY head, owner, type, anchor")
        try db.execute("DELETE FROM \(UUIDLevels.recent)")
        recentUUIDs = 0
        uuidMergeDue = nil
    }

    /// Rows in the recent level, counted once per writer and after a transaction failed (the count is
    /// kept in memory only to know when to turn it into a run).
    private func recentUUIDCount() throws(HealthError) -> Int {
        if let known = recentUUIDs { return known }
        let count = try db.prepare("SELECT count(*) FROM \(UUIDLevels.recent)")
        defer { count.reset() }
        _ = try count.step()
        recentUUIDs = Int(count.int(0))
        return Int(count.int(0))
    }
}

/// UUIDs an insert of many rows claimed (`WriteContext.bulkClaims`), not yet written as a run.
struct PendingUUIDRun {
    var entries: [UUIDEntry] = []
    /// The entries' heads, so a UUID repeated in a later chunk is found before it is claimed twice.
    var heads: Set<UInt64> = []

    mutating func add(_ entry: UUIDEntry) {
        entries.append(entry)
        heads.insert(entry.head)
    }
}

/// A sample's place in `samples` under its owner: its type and anchor.
struct SampleKey: Hashable {
    let type: Int64, anchor: Int64
}
