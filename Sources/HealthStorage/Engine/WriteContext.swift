import Foundation
import HealthModel

/// Everything the writer thread owns: its connection, the value → id caches of interned rows, the
/// owners' anchor counters and what the running transaction changed. Used only on the writer thread.
final class WriteContext {
    let db: Database
    let registry: Registry
    /// Time stamped on everything the current transaction creates.
    private(set) var now: Microseconds = 0

    private var typeIDs = LayeredCache<String, Int64>()
    private var sourceIDs = LayeredCache<String, Int64>()
    private var revisionIDs = LayeredCache<SourceRevision, Int64>()
    private var deviceIDs = LayeredCache<Device, Int64>()
    private var typeSources = LayeredCache<TypeSourceKey, Bool>()
    private var extents = LayeredCache<TypeExtentKey, Int64>()
    /// Last anchor handed out per owner in the running transaction. Never rolled back: a failed job
    /// only leaves a gap.
    private var anchors: [Int64: Int64] = [:]
    /// Owners whose anchor moved in the running job (persisted before its savepoint is released).
    private var jobAnchors: Set<Int64> = []
    private var jobChanges: [Int64: ChangeSet] = [:]
    private var transactionChanges: [Int64: ChangeSet] = [:]

    struct ChangeSet {
        var spans: [String: TimeSpan] = [:]
        var sources: Set<String> = []

        mutating func formUnion(_ other: ChangeSet) {
            spans.merge(other.spans) { $0.union($1) }
            sources.formUnion(other.sources)
        }

        mutating func note(type: String, span: TimeSpan, bundleID: String) {
            spans[type] = spans[type].map { $0.union(span) } ?? span
            sources.insert(bundleID)
        }
    }

    private struct TypeSourceKey: Hashable {
        let owner: Int64, type: Int64, source: Int64
    }

    private struct TypeExtentKey: Hashable {
        let owner: Int64, type: Int64
    }

    init(db: Database, registry: Registry) throws(HealthError) {
        self.db = db
        self.registry = registry
        try loadInterned()
    }

    /// The interned tables are small (types, apps, app builds, devices): load them once.
    private func loadInterned() throws(HealthError) {
        let types = try db.prepareOnce("SELECT id, identifier FROM types")
        while try types.step() { typeIDs.load(types.int(0), for: types.text(1) ?? "") }
        let sources = try db.prepareOnce("SELECT id, bundle_id FROM sources")
        while try sources.step() { sourceIDs.load(sources.int(0), for: sources.text(1) ?? "") }
        let revisions = try db.prepareOnce("SELECT id FROM revisions")
        while try revisions.step() {
            let id = revisions.int(0)
            revisionIDs.load(id, for: try registry.revision(id, db))
        }
        let devices = try db.prepareOnce("SELECT id FROM devices")
        while try devices.step() {
            let id = devices.int(0)
            deviceIDs.load(id, for: try registry.device(id, db))
        }
    }

    // MARK: transaction bookkeeping

    func beginTransaction() {
        now = Time.now()
        anchors.removeAll(keepingCapacity: true)
    }

    /// Persists the anchors the job moved; runs inside the job's savepoint.
    func finishJobWrites() throws(HealthError) {
        let update = try db.prepare("UPDATE owners SET last_anchor = ? WHERE id = ?")
        for owner in jobAnchors {
            update.reset()
            update.bind(1, anchors[owner])
            update.bind(2, owner)
            try update.run()
        }
    }

    func finishJob(success: Bool) {
        typeIDs.finishJob(success: success)
        sourceIDs.finishJob(success: success)
        revisionIDs.finishJob(success: success)
        deviceIDs.finishJob(success: success)
        typeSources.finishJob(success: success)
        extents.finishJob(success: success)
        if success {
            for (owner, change) in jobChanges { transactionChanges[owner, default: ChangeSet()].formUnion(change) }
        }
        jobChanges.removeAll(keepingCapacity: true)
        jobAnchors.removeAll(keepingCapacity: true)
    }

    /// Ends the transaction; on success returns (owner, changes) for the change feed.
    func finishTransaction(success: Bool) -> [(owner: Int64, changes: ChangeSet)] {
        typeIDs.finishTransaction(success: success)
        sourceIDs.finishTransaction(success: success)
        revisionIDs.finishTransaction(success: success)
        deviceIDs.finishTransaction(success: success)
        typeSources.finishTransaction(success: success)
        extents.finishTransaction(success: success)
        defer { transactionChanges.removeAll(keepingCapacity: true) }
        guard success else { return [] }
        return transactionChanges.map { ($0.key, $0.value) }
    }

    /// Records that `bundleID` inserted or deleted an object of `type` covering `span`.
    func noteChange(owner: Int64, type: String, span: TimeSpan, bundleID: String) {
        // In place: this runs for every saved sample.
        jobChanges[owner, default: ChangeSet()].note(type: type, span: span, bundleID: bundleID)
    }

    // MARK: anchors

    /// The next position in the owner's change sequence. The owner's counter row is read once per
    /// transaction through an UPDATE, which write-locks the row until the transaction ends: a second
    /// transaction of the same owner (another node's writer on a shared PostgreSQL) waits at this
    /// point for the first to commit and then continues from its committed counter. So anchors are
    /// handed out in commit order per owner: no transaction ever commits an anchor below one already
    /// visible, and a reader that paged past anchor n can never later find a new object at or below n.
    /// A sequence would break exactly that (a value taken early can commit after a later one).
    func nextAnchor(owner: Int64) throws(HealthError) -> Int64 {
        let last: Int64
        if let known = anchors[owner] {
            last = known
        } else {
            let statement = try db.prepare("UPDATE owners SET last_anchor = last_anchor WHERE id = ? RETURNING last_anchor")
            statement.bind(1, owner)
            guard let committed = try statement.insertReturning() else { throw HealthError(.notFound, "owner #\(owner) does not exist") }
            last = committed
        }
        anchors[owner] = last + 1
        jobAnchors.insert(owner)
        return last + 1
    }

    // MARK: interned rows

    func typeID(_ identifier: String) throws(HealthError) -> Int64 {
        try internedID(\.typeIDs, identifier, "INSERT INTO types (id, identifier) SELECT COALESCE(MAX(id), 0) + 1, ? FROM types RETURNING id") { insert in insert.bind(1, identifier) }
    }

    func sourceID(_ bundleID: String) throws(HealthError) -> Int64 {
        try internedID(\.sourceIDs, bundleID, "INSERT INTO sources (id, bundle_id) SELECT COALESCE(MAX(id), 0) + 1, ? FROM sources RETURNING id") { insert in insert.bind(1, bundleID) }
    }

    /// The id of an existing source, without creating one (for filters).
    func existingSourceID(_ bundleID: String) -> Int64? { sourceIDs[bundleID] }

    func revisionID(_ revision: SourceRevision) throws(HealthError) -> Int64 {
        try internedID(\.revisionIDs, revision, """
            INSERT INTO revisions (id, key, source, name, version, product_type, os_major, os_minor, os_patch)
            SELECT COALESCE(MAX(id), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? FROM revisions RETURNING id
            """) { insert throws(HealthError) in
            var key = BinaryWriter()
            key.string(revision.source.bundleID)
            key.string(revision.source.name)
            key.optionalString(revision.version)
            key.optionalString(revision.productType)
            key.int(Int64(revision.osMajor)); key.int(Int64(revision.osMinor)); key.int(Int64(revision.osPatch))
            insert.bind(1, key.data)
            insert.bind(2, try sourceID(revision.source.bundleID))
            insert.bind(3, revision.source.name)
            insert.bind(4, revision.version)
            insert.bind(5, revision.productType)
            insert.bind(6, Int64(revision.osMajor)); insert.bind(7, Int64(revision.osMinor)); insert.bind(8, Int64(revision.osPatch))
        }
    }

    /// nil for no device (an all-empty device is no device).
    func deviceID(_ device: Device?) throws(HealthError) -> Int64? {
        guard let device, !device.isEmpty else { return nil }
        return try internedID(\.deviceIDs, device, """
            INSERT INTO devices (id, key, name, manufacturer, model, hardware_version, firmware_version, software_version,
                                 local_identifier, udi_device_identifier)
            SELECT COALESCE(MAX(id), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM devices RETURNING id
            """) { insert in
            let fields = [device.name, device.manufacturer, device.model, device.hardwareVersion, device.firmwareVersion,
                          device.softwareVersion, device.localIdentifier, device.udiDeviceIdentifier]
            var key = BinaryWriter()
            for field in fields { key.optionalString(field) }
            insert.bind(1, key.data)
            for (offset, field) in fields.enumerated() { insert.bind(Int32(offset + 2), field) }
        }
    }

    /// The cached id of `value`, or the id of the row `sql` inserts for it with what `bind` binds. Ids
    /// are the table's highest plus one, taken in SQL (no sequence), so a later row has a higher id:
    /// "the latest revision of a source" is its highest id.
    private func internedID<Value>(_ cache: ReferenceWritableKeyPath<WriteContext, LayeredCache<Value, Int64>>, _ value: Value,
                                   _ sql: String, bind: (Statement) throws(HealthError) -> Void) throws(HealthError) -> Int64 {
        if let id = self[keyPath: cache][value] { return id }
        let insert = try db.prepare(sql)
        try bind(insert)
        guard let id = try insert.insertReturning() else { throw HealthError(.internalError, "inserting an interned row returned no id") }
        self[keyPath: cache].insert(id, for: value)
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
