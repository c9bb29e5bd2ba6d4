import Foundation
import HealthModel

/// Everything the writer thread owns: its connection, the value → id caches of interned rows, the
/// owners' anchor counters and what the running transaction changed. Used only on the writer thread.
final class WriteContext {
    let db: Database
    let registry: Registry
    /// Time stamped on everything the current transaction creates.
    private(set) var now: Microseconds = 0

    private var typeIDs = LayeredCache<Owned<String>, Int64>()
    private var sourceIDs = LayeredCache<Owned<String>, Int64>()
    private var revisionIDs = LayeredCache<Owned<SourceRevision>, Int64>()
    private var deviceIDs = LayeredCache<Owned<Device>, Int64>()
    private var typeSources = LayeredCache<TypeSourceKey, Bool>()
    private var extents = LayeredCache<TypeExtentKey, Int64>()
    private var metadataUnits = LayeredCache<MetadataUnitKey, Bool>()
    // The bookkeeping every save touches (`anchors`, the owners' locks, the pending group rows) is
    // `@exclusivity(unchecked)`: a context is used by its writer thread alone, and no access to these
    // spans a call that could reach them again; the runtime's checks of them cost ≈1 k instructions a save.

    /// Last anchor handed out per owner in the running transaction, and whether it moved (then it is
    /// persisted just before the transaction commits). Never rolled back: a failed job only leaves a
    /// gap. One entry, changed in place: a counter and a set of moved owners hashed the owner three
    /// times a sample.
    @exclusivity(unchecked) private var anchors: [Int64: (last: Int64, moved: Bool)] = [:]
    /// Owners whose counter row the running job locked first.
    @exclusivity(unchecked) private var jobLockedOwners: [Int64] = []
    /// Owners whose counter row a failed job locked first: rolling back to a job's savepoint releases
    /// the row locks taken since (PostgreSQL), so the next job of such an owner takes it again (`lockOwner`).
    @exclusivity(unchecked) private var unlockedOwners: Set<Int64> = []
    /// What the running job and transaction changed, one note per object, folded into the feed's
    /// per-owner events only at commit: hashing every sample's type and source into a job's and
    /// then the transaction's dictionaries cost the writer more than the rest of its bookkeeping.
    private var jobChanges: [ChangeNote] = []
    private var transactionChanges: [ChangeNote] = []
    /// Events other than data changes that the running job and transaction made.
    private var jobEvents: [StoreEvent] = []
    private var transactionEvents: [StoreEvent] = []
    /// What the running job and transaction do once committed (see `afterCommit`).
    private var jobCommitted: [() -> Void] = []
    private var transactionCommitted: [() -> Void] = []
    /// The writer's multi-row statements of a repeating size, prepared once: their texts are long, and
    /// building one and finding it in the statement cache hashed all of it for every chunk and batch.
    private var preparedRows: [RowsStatement: Statement] = [:]
    /// `prepared(.sampleInsert, rows: 1)`, which every save takes for its savers: kept at hand, its key
    /// was hashed into `preparedRows` once a batch.
    private var oneSampleInsert: Statement?
    /// The unit `parsedUnit` parsed last.
    private var lastUnit: (text: String, unit: HealthUnit)?
    /// Whether the running group inserts its lone plain samples together (`save(_:settle:)`): only
    /// in a group of several jobs run without savepoints, where a refused row undoes the whole group
    /// anyway.
    var groupsRows = false
    /// Whether the running group's array inserts take every sample's UUID to be new (PostgreSQL,
    /// `SampleRow.newArraysSQL`): a group's first try, which a stored or repeated UUID fails, so the
    /// group runs again with the inserts that skip stored UUIDs (`WriterThread.commit`).
    var assumesNewUUIDs = false
    /// The running group's lone plain samples not yet inserted, in job order, each with where its
    /// job's outcome is settled (`insertGroupRows`).
    @exclusivity(unchecked) var groupRows: [PendingSample] = []
    @exclusivity(unchecked) var groupSettles: [(SaveOutcome) -> Void] = []
    /// Rows in the recent UUID level as far as this writer knows (`UUIDLevels`); nil until counted.
    /// Only when to turn it into a run depends on it.
    var recentUUIDs: Int?
    /// `recentUUIDs` as the running transaction began: the UUIDs it claimed size its merge slice.
    var recentUUIDsAtBegin: Int?
    /// Recent-level rows before they become a run (tests lower it to force runs and merges).
    var uuidRecentLimit = UUIDLevels.recentLimit
    /// Objects a batch holds at least for its UUIDs to become a run of their own
    /// (`UUIDLevels.runClaimRows`; tests lower it).
    var uuidRunClaimRows = UUIDLevels.runClaimRows
    /// Where the last claim found the stored samples of the UUIDs it did not claim (`claimAfterHeadHit`),
    /// for their comparison with what is saved again.
    var heldKeys: [Owned<UUID>: SampleKey] = [:]
    /// The UUIDs the running bulk insert claimed (`bulkClaims`), while one runs.
    var pendingRun: PendingUUIDRun?
    /// UUIDs the running transaction claimed as runs of their own: with the recent level's growth, they
    /// size its merge slice.
    var claimedAsRuns = 0
    /// Entries a merge slice writes at most (tests lower it to cut merges into many slices).
    var uuidMergeSliceEntries = UUIDLevels.mergeSliceEntries
    /// Whether a merge of UUID runs runs or may start: nil until asked, false until the next run is written.
    var uuidMergeDue: Bool?
    /// Whether the idle writer merges slices in transactions of their own (`SQLiteStore.Options`).
    var mergesWhileIdle = true
    /// Whether a slice was merged while idle since the last commit of jobs, which then carries none.
    var mergedWhileIdle = false
    /// Whether the last idle slice failed: no more are tried until a commit of jobs has moved the levels.
    var idleMergeFailed = false
    /// Every UUID the levels hold or held (`UUIDFilter`): on SQLite once its build is taken, nil before
    /// that and on PostgreSQL.
    var uuidFilter: UUIDFilter?
    /// Where `uuidFilter` is built from (SQLite only), and the build running, if any.
    var uuidFilterSource: UUIDFilterSource?
    var uuidFilterBuild: UUIDFilterBuild?
    /// The store's `data_version` when `uuidFilter`'s build began, and whether the running transaction
    /// compared it with the current one.
    var uuidFilterVersion: Int64 = 0
    var uuidFilterChecked = false

    struct ChangeSet {
        var spans: [String: TimeSpan] = [:]
        var sources: Set<String> = []

        mutating func note(type: String, span: TimeSpan, bundleID: String) {
            spans[type] = spans[type].map { $0.union(span) } ?? span
            sources.insert(bundleID)
        }
    }

    /// That `bundleID` inserted or deleted an object of `type` covering `span`.
    private struct ChangeNote {
        let owner: Int64, type: String, span: TimeSpan, bundleID: String

        /// This note and `next` as one, when they differ only in their spans.
        func merged(with next: ChangeNote) -> ChangeNote? {
            guard owner == next.owner, type == next.type, bundleID == next.bundleID else { return nil }
            return ChangeNote(owner: owner, type: type, span: span.union(next.span), bundleID: bundleID)
        }
    }

    /// An interned value of one owner (interned ids are the owner's own).
    struct Owned<Value: Hashable>: Hashable {
        let owner: Int64, value: Value
    }

    private struct TypeSourceKey: Hashable {
        let owner: Int64, type: Int64, source: Int64
    }

    private struct MetadataUnitKey: Hashable {
        let owner: Int64, unit: String
    }

    private struct TypeExtentKey: Hashable {
        let owner: Int64, type: Int64
    }

    /// A multi-row statement the writer runs again and again: its kind and how many rows it takes.
    struct RowsStatement: Hashable {
        enum Kind { case sampleInsert, sampleArrays, newSampleArrays, uuidClaim }
        let kind: Kind, rows: Int

        func sql(_ dialect: SQLDialect) -> String {
            switch kind {
            case .sampleInsert: SampleRow.insertSQL(dialect, rows: rows)
            case .sampleArrays: SampleRow.arraysSQL
            case .newSampleArrays: SampleRow.newArraysSQL
            case .uuidClaim: UUIDLevels.claimSQL(rows: rows)
            }
        }
    }

    init(db: Database, registry: Registry) {
        self.db = db
        self.registry = registry
    }

    /// A statement of `kind` over `rows` rows (a PostgreSQL statement prepares itself again after a
    /// reconnect). A full chunk (`samplesPerInsert`) and powers of two (a group's rows, `insertGroupRows`)
    /// repeat and are prepared once; other sizes are prepared for this use alone, as they would only
    /// fill the cache. Not reset here: each user binds every parameter and resets the statement around
    /// running it.
    func prepared(_ kind: RowsStatement.Kind, rows: Int) throws(HealthError) -> Statement {
        let key = RowsStatement(kind: kind, rows: rows)
        if let statement = preparedRows[key] { return statement }
        guard rows.nonzeroBitCount == 1 || rows == db.dialect.samplesPerInsert else { return try db.prepareOnce(key.sql(db.dialect)) }
        let statement = try db.prepare(key.sql(db.dialect))
        preparedRows[key] = statement
        return statement
    }

    /// `unit` parsed, the last one kept: a stream's samples repeat their unit, and `HealthUnit.parse`
    /// went through the shared unit cache's lock and String-keyed look-up for every sample.
    func parsedUnit(_ unit: String) throws(HealthError) -> HealthUnit {
        if let lastUnit, lastUnit.text == unit { return lastUnit.unit }
        let parsed = try HealthUnit.parse(unit)
        lastUnit = (unit, parsed)
        return parsed
    }

    /// The one-row sample insert (`prepared(.sampleInsert, rows: 1)`).
    func sampleInsert() throws(HealthError) -> Statement {
        if let oneSampleInsert { return oneSampleInsert }
        let statement = try prepared(.sampleInsert, rows: 1)
        oneSampleInsert = statement
        return statement
    }

    // MARK: transaction bookkeeping

    func beginTransaction() {
        now = Time.now()
        anchors.removeAll(keepingCapacity: true)
        jobLockedOwners.removeAll(keepingCapacity: true)
        unlockedOwners.removeAll(keepingCapacity: true)
        uuidFilterChecked = false
        recentUUIDsAtBegin = recentUUIDs
        claimedAsRuns = 0
    }

    /// Persists the anchors the transaction moved, once per owner rather than once per job: an anchor
    /// is never handed out twice, so a job undone after moving one only leaves a gap. Moves the UUID
    /// levels on when due (a run written, a merge's slice), in this transaction.
    func finishTransactionWrites() throws(HealthError) {
        try moveUUIDLevelsIfDue()
        let update = try db.prepare("UPDATE anchor_counters SET last_anchor = ? WHERE owner = ?")
        for (owner, anchor) in anchors where anchor.moved {
            update.reset()
            update.bind(1, anchor.last)
            update.bind(2, owner)
            try update.run()
        }
    }

    func finishJob(success: Bool) {
        if !success { unlockedOwners.formUnion(jobLockedOwners) }
        jobLockedOwners.removeAll(keepingCapacity: true)
        typeIDs.finishJob(success: success)
        sourceIDs.finishJob(success: success)
        revisionIDs.finishJob(success: success)
        deviceIDs.finishJob(success: success)
        typeSources.finishJob(success: success)
        extents.finishJob(success: success)
        metadataUnits.finishJob(success: success)
        if success {
            transactionChanges += jobChanges
            transactionEvents += jobEvents
            transactionCommitted += jobCommitted
        }
        jobChanges.removeAll(keepingCapacity: true)
        jobEvents.removeAll(keepingCapacity: true)
        jobCommitted.removeAll(keepingCapacity: true)
    }

    /// What the running transaction changed, as the change feed carries it: one data event per
    /// owner, then the other events in the order the jobs made them.
    var transactionFeedEvents: [StoreEvent] {
        var changes: [Int64: ChangeSet] = [:]
        func fold(_ note: ChangeNote) {
            changes[note.owner, default: ChangeSet()].note(type: note.type, span: note.span, bundleID: note.bundleID)
        }
        // Runs of notes alike but for their spans (one source saving one type) touch the dictionaries once.
        var run: ChangeNote?
        for note in transactionChanges {
            if let merged = run?.merged(with: note) {
                run = merged
            } else {
                run.map(fold)
                run = note
            }
        }
        run.map(fold)
        return changes.map { owner, change in
            .data(ChangeEvent(owner: OwnerID(owner), spans: change.spans, sources: change.sources))
        } + transactionEvents
    }

    /// Ends the transaction (`transactionFeedEvents` is empty afterwards).
    func finishTransaction(success: Bool) {
        typeIDs.finishTransaction(success: success)
        sourceIDs.finishTransaction(success: success)
        revisionIDs.finishTransaction(success: success)
        deviceIDs.finishTransaction(success: success)
        typeSources.finishTransaction(success: success)
        extents.finishTransaction(success: success)
        metadataUnits.finishTransaction(success: success)
        transactionChanges.removeAll(keepingCapacity: true)
        transactionEvents.removeAll(keepingCapacity: true)
        groupRows.removeAll(keepingCapacity: true)
        groupSettles.removeAll(keepingCapacity: true)
        if !success { (recentUUIDs, uuidMergeDue) = (nil, nil) }
        if success { transactionCommitted.forEach { $0() } }
        transactionCommitted.removeAll(keepingCapacity: true)
    }

    /// Runs `action` once the running job's writes are committed; never when they are undone.
    func afterCommit(_ action: @escaping () -> Void) {
        jobCommitted.append(action)
    }

    /// Records that `bundleID` inserted or deleted an object of `type` covering `span`.
    func noteChange(owner: Int64, type: String, span: TimeSpan, bundleID: String) {
        jobChanges.append(ChangeNote(owner: owner, type: type, span: span, bundleID: bundleID))
    }

    /// Records an event other than a data change for the change feed of other nodes.
    func noteEvent(_ event: StoreEvent) {
        jobEvents.append(event)
    }

    // MARK: anchors

    /// Takes the owner's counter row for the rest of the transaction: read once per transaction (and
    /// again after a failed job that took it, see `unlockedOwners`) through an UPDATE, which write-locks
    /// the row until the transaction ends (on SQLite, whose writer already holds the whole database, a
    /// plain read: `SQLDialect.lockOwnerSQL`). A second transaction
    /// of the same owner (another node's writer on a shared PostgreSQL) waits here for the first to
    /// commit and then continues from its committed counter. So anchors are handed out in commit
    /// order per owner: no transaction ever commits an anchor below one already visible, and a reader
    /// that paged past anchor n can never later find a new object at or below n. A sequence would
    /// break exactly that (a value taken early can commit after a later one). Writes call this before
    /// anything else, so two writers of one owner never hold other rows the other waits for (and the
    /// rows a writer adds to the interned tables are its owner's own, so writers of different owners
    /// never wait for each other either).
    @discardableResult
    func lockOwner(_ owner: Int64) throws(HealthError) -> Int64 {
        let known = anchors[owner]
        if let known, !mustRelock(owner) { return known.last }
        let statement = try db.prepare(db.dialect.lockOwnerSQL)
        statement.bind(1, owner)
        guard let committed = try statement.insertReturning() else { throw HealthError(.notFound, "owner #\(owner) does not exist") }
        // Taken again after a failed job: the anchors that job handed out stay a gap.
        anchors[owner] = (max(known?.last ?? committed, committed), known?.moved ?? false)
        unlockedOwners.remove(owner)
        jobLockedOwners.append(owner)
        return anchors[owner]!.last
    }

    /// The next position in the owner's change sequence (see `lockOwner`).
    func nextAnchor(owner: Int64) throws(HealthError) -> Int64 {
        var index = anchors.index(forKey: owner)
        if index == nil || mustRelock(owner) {
            try lockOwner(owner)
            index = anchors.index(forKey: owner)
        }
        let next = anchors.values[index!].last + 1
        anchors.values[index!] = (next, true)
        return next
    }

    /// Whether a failed job released the owner's counter row (see `unlockedOwners`).
    private func mustRelock(_ owner: Int64) -> Bool {
        !unlockedOwners.isEmpty && unlockedOwners.contains(owner)
    }

    // MARK: interned rows

    func typeID(_ identifier: String, owner: Int64) throws(HealthError) -> Int64 {
        try internedID(\.typeIDs, Owned(owner: owner, value: identifier), table: "types", key: ("identifier", .text(identifier)), fields: [])
    }

    func sourceID(_ bundleID: String, owner: Int64) throws(HealthError) -> Int64 {
        try internedID(\.sourceIDs, Owned(owner: owner, value: bundleID), table: "sources", key: ("bundle_id", .text(bundleID)), fields: [])
    }

    /// The id of an existing source, without creating one (for filters).
    func existingSourceID(_ bundleID: String, owner: Int64) throws(HealthError) -> Int64? {
        if let id = sourceIDs[Owned(owner: owner, value: bundleID)] { return id }
        return try existingID(table: "sources", owner: owner, key: ("bundle_id", .text(bundleID)))
    }

    func revisionID(_ revision: SourceRevision, owner: Int64) throws(HealthError) -> Int64 {
        let owned = Owned(owner: owner, value: revision)
        if let id = revisionIDs[owned] { return id }
        var key = BinaryWriter()
        key.string(revision.source.bundleID)
        key.string(revision.source.name)
        key.optionalString(revision.version)
        key.optionalString(revision.productType)
        key.int(Int64(revision.osMajor)); key.int(Int64(revision.osMinor)); key.int(Int64(revision.osPatch))
        let text = { (value: String?) in value.map { SQLValue.text($0) } ?? .null }
        return try internedID(\.revisionIDs, owned, table: "revisions", key: ("key", .blob(key.data)), fields: [
            ("source", .int(try sourceID(revision.source.bundleID, owner: owner))), ("name", .text(revision.source.name)),
            ("version", text(revision.version)), ("product_type", text(revision.productType)),
            ("os_major", .int(Int64(revision.osMajor))), ("os_minor", .int(Int64(revision.osMinor))), ("os_patch", .int(Int64(revision.osPatch))),
        ])
    }

    /// nil for no device (an all-empty device is no device).
    func deviceID(_ device: Device?, owner: Int64) throws(HealthError) -> Int64? {
        guard let device, !device.isEmpty else { return nil }
        let owned = Owned(owner: owner, value: device)
        if let id = deviceIDs[owned] { return id }
        let fields = [("name", device.name), ("manufacturer", device.manufacturer), ("model", device.model),
                      ("hardware_version", device.hardwareVersion), ("firmware_version", device.firmwareVersion),
                      ("software_version", device.softwareVersion), ("local_identifier", device.localIdentifier),
                      ("udi_device_identifier", device.udiDeviceIdentifier)]
        var key = BinaryWriter()
        for (_, field) in fields { key.optionalString(field) }
        return try internedID(\.deviceIDs, owned, table: "devices", key: ("key", .blob(key.data)),
                              fields: fields.map { ($0.0, $0.1.map { SQLValue.text($0) } ?? .null) })
    }

    /// The cached id of `value`, or the id of its owner's row in `table`, found by its unique `key`
    /// column or inserted with `fields`. Ids are the owner's highest plus one, taken in SQL (no
    /// sequence), so a later row has a higher id: "the latest revision of a source" is its highest id.
    /// A writer on another node may intern the same value for the same owner, or take the same id
    /// for another one, at the same time: the insert then does nothing, and the row is read back or
    /// the insert retried with the next id.
    private func internedID<Value>(_ cache: ReferenceWritableKeyPath<WriteContext, LayeredCache<Owned<Value>, Int64>>, _ value: Owned<Value>,
                                   table: String, key: (column: String, value: SQLValue),
                                   fields: [(column: String, value: SQLValue)]) throws(HealthError) -> Int64 {
        if let id = self[keyPath: cache][value] { return id }
        let columns = [key.column] + fields.map(\.column)
        let insert = try db.prepare("""
            INSERT INTO \(table) (owner, id, \(columns.joined(separator: ", "))) SELECT ?1, COALESCE(MAX(id), 0) + 1, \
            \((2...columns.count + 1).map { "?\($0)" }.joined(separator: ", ")) FROM \(table) WHERE owner = ?1
            ON CONFLICT DO NOTHING RETURNING id
            """)
        for _ in 0..<8 {
            var found = try existingID(table: table, owner: value.owner, key: key)
            if found == nil {
                insert.reset()
                insert.bind(all: [.int(value.owner), key.value] + fields.map(\.value))
                found = try insert.insertReturning()
            }
            if let id = found {
                self[keyPath: cache].insert(id, for: value)
                return id
            }
        }
        throw HealthError(.unavailable, "could not add a row to '\(table)' while other writers kept adding rows; retry")
    }

    /// The id of the owner's row in `table` with `key`, if there is one.
    private func existingID(table: String, owner: Int64, key: (column: String, value: SQLValue)) throws(HealthError) -> Int64? {
        let lookup = try db.prepare("SELECT id FROM \(table) WHERE owner = ? AND \(key.column) = ?")
        lookup.bind(all: [.int(owner), key.value])
        let id = try lookup.step() ? lookup.int(0) : nil
        lookup.reset()
        return id
    }

    /// Records that `source` saved `type` for `owner` (first sighting only).
    func noteTypeSource(owner: Int64, type: Int64, source: Int64) throws(HealthError) {
        let key = TypeSourceKey(owner: owner, type: type, source: source)
        if typeSources[key] != nil { return }
        let insert = try db.prepare("INSERT INTO type_sources (owner, type, source, first_seen) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
        insert.bind(1, owner); insert.bind(2, type); insert.bind(3, source); insert.bind(4, now)
        try insert.run()
        typeSources.insert(true, for: key)
    }

    /// Records a unit of a quantity stored in the owner's metadata (engines whose `hs_meta` cannot
    /// convert units; see `SQLDialect.convertsMetadataUnitsBeforehand`).
    func noteMetadataUnit(owner: Int64, _ unit: String) throws(HealthError) {
        let key = MetadataUnitKey(owner: owner, unit: unit)
        if metadataUnits[key] != nil { return }
        let insert = try db.prepare("INSERT INTO metadata_units (owner, unit) VALUES (?, ?) ON CONFLICT DO NOTHING")
        insert.bind(1, owner)
        insert.bind(2, unit)
        try insert.run()
        metadataUnits.insert(true, for: key)
    }

    /// Keeps `type_extents` at the longest duration stored for (owner, type).
    func noteDuration(owner: Int64, type: Int64, duration: Int64) throws(HealthError) {
        let key = TypeExtentKey(owner: owner, type: type)
        if let known = extents[key], known >= duration { return }
        let upsert = try db.prepare("""
            INSERT INTO type_extents (owner, type, max_duration) VALUES (?, ?, ?)
            ON CONFLICT (owner, type) DO UPDATE SET max_duration = CASE
                WHEN excluded.max_duration > type_extents.max_duration THEN excluded.max_duration ELSE type_extents.max_duration END
            RETURNING max_duration
            """)
        upsert.bind(1, owner)
        upsert.bind(2, type)
        upsert.bind(3, duration)
        guard try upsert.step() else { throw HealthError(.internalError, "the type_extents upsert returned no row") }
        extents.insert(upsert.int(0), for: key)
        upsert.reset()
    }
}
