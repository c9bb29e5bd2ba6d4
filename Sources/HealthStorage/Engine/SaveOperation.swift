import Foundation
import HealthModel

/// Saving a batch on the writer thread (inside the batch's savepoint, so a throw undoes the batch).
extension WriteContext {
    /// Saves `batch`. With `settle`, in a group that inserts its lone plain samples together
    /// (`groupsRows`), a one-object batch of a plain sample only leaves its row pending and returns
    /// `.stored`; `settle` gets its outcome if the insert finds another one (a retry), and a refusal
    /// throws from that insert, undoing the group. Any other batch first inserts the pending rows,
    /// so that it sees them.
    func save(_ batch: SaveBatch, settle: ((SaveOutcome) -> Void)? = nil) throws(HealthError) -> [SaveOutcome] {
        let grouped = groupsRows && settle != nil && batch.objects.count == 1
        if !grouped { try insertGroupRows() }
        let owner = batch.owner.rawValue
        try lockOwner(owner)
        let insertRow = try sampleInsert()
        // An ordinary batch has one saver, found once rather than hashed per object; only an import
        // keeps the savers of its sources (what a local function captured for every batch before).
        let savers: BatchSavers = batch.keepsSources ? .kept(KeptSavers(owner: owner, insertRow: insertRow))
            : .connection(try connectionSaver(batch, insertRow: insertRow))
        // A grouped lone sample returns `.stored` (settled later if need be) in a shared array, not one of its own.
        var outcomes = grouped ? Self.storedAlone : [SaveOutcome](repeating: .stored, count: batch.objects.count)
        return try bulkClaims(rows: grouped ? 1 : batch.objects.count) { () throws(HealthError) -> [SaveOutcome] in
            // A lone sample takes the one-row `OR FAIL` insert: no RETURNING set to gather, and no
            // statement journal, since a one-row insert that fails has changed nothing.
            var pending = PendingSamples(limit: batch.objects.count > 1 ? db.dialect.samplesPerInsert : 1)
            for (index, object) in batch.objects.enumerated() {
                do throws(HealthError) {
                    let objectSaver = switch savers {
                    case .connection(let saver): saver
                    case .kept(let kept): try kept.saver(for: Self.keptRevision(object), in: self)
                    }
                    let device = object.device ?? batch.defaultDevice
                    if pending.limit > 1 || grouped, let row = try objectSaver.plainRow(object, device: device) {
                        let sample = PendingSample(index: index, saver: objectSaver, batch: batch, row: row)
                        if let settle, grouped {
                            try addGroupRow(sample, settle: settle)
                            return outcomes
                        }
                        pending.rows.append(sample)
                        if pending.rows.count == pending.limit { try insert(&pending, into: &outcomes) }
                    } else {
                        // Whatever this object reads (its sync match, the samples of a workout) must see the rows
                        // before it, and their UUIDs: it claims its own in the recent level.
                        try insertGroupRows()
                        try insert(&pending, into: &outcomes)
                        let bulk = try suspendBulkClaims()
                        outcomes[index] = try objectSaver.save(object, device: device, parent: nil)
                        pendingRun = bulk
                    }
                } catch {
                    // Row by row, a failure of an object still pending would have come first.
                    try insert(&pending, into: &outcomes)
                    throw error.objectIndex == nil ? error.at(index: index) : error
                }
            }
            try insert(&pending, into: &outcomes)
            return outcomes
        }
    }

    private static let storedAlone: [SaveOutcome] = [.stored]

    /// Where a batch's objects find their saver: an ordinary batch's one, or an import's, one per source revision.
    private enum BatchSavers {
        case connection(ObjectSaver)
        case kept(KeptSavers)
    }

    /// An import's savers, one per source revision it saves as.
    private final class KeptSavers {
        private let owner: Int64
        private let insertRow: Statement
        private var savers: [SourceRevision: ObjectSaver] = [:]
        /// An import's objects come in runs of one source revision (one instance, from `SourceRules.keptSources`):
        /// compared with the last one, it is not hashed per object.
        private var last: (revision: SourceRevision, saver: ObjectSaver)?

        init(owner: Int64, insertRow: Statement) {
            self.owner = owner
            self.insertRow = insertRow
        }

        func saver(for revision: SourceRevision, in context: WriteContext) throws(HealthError) -> ObjectSaver {
            if let last, last.revision == revision { return last.saver }
            if let known = savers[revision] {
                last = (revision, known)
                return known
            }
            let source = try context.sourceID(revision.source.bundleID, owner: owner)
            try context.noteImport(owner: owner, source: source)
            let saver = ObjectSaver(context: context, owner: owner, source: source, revision: try context.revisionID(revision, owner: owner),
                                    bundleID: revision.source.bundleID, insertRow: insertRow, shortcuts: SaveShortcuts(),
                                    shortcutsLastOneBatch: true)
            savers[revision] = saver
            last = (revision, saver)
            return saver
        }
    }

    /// Plain samples waiting to be inserted together, with their anchors already taken.
    private struct PendingSamples {
        let limit: Int
        var rows: [PendingSample] = []
    }

    private func insert(_ pending: inout PendingSamples, into outcomes: inout [SaveOutcome]) throws(HealthError) {
        let rows = pending.rows
        pending.rows.removeAll(keepingCapacity: true)
        try insertInPreparedSizes(rows) { offset, outcome in outcomes[rows[offset].index] = outcome }
    }

    /// Leaves a lone plain sample's row pending in the group (see `save(_:settle:)`), inserting a full
    /// chunk first: never the job's own row, whose outcome its job has yet to return.
    private func addGroupRow(_ sample: PendingSample, settle: @escaping (SaveOutcome) -> Void) throws(HealthError) {
        if groupRows.count == db.dialect.samplesPerInsert { try insertGroupRows() }
        groupRows.append(sample)
        groupSettles.append(settle)
    }

    /// Inserts the group's pending rows, in job order, and settles each job's outcome.
    func insertGroupRows() throws(HealthError) {
        guard !groupRows.isEmpty else { return }
        let (rows, settles) = (groupRows, groupSettles)
        groupRows.removeAll(keepingCapacity: true)
        groupSettles.removeAll(keepingCapacity: true)
        try insertInPreparedSizes(rows) { offset, outcome in settles[offset](outcome) }
    }

    /// Inserts `rows` in order, in chunks whose statements are prepared once (full chunks, then powers
    /// of two), so any number of rows pays a few statements rather than one a row, or one prepared for
    /// its size alone: parsing a 100-row claim and insert cost about as much as inserting 60 rows, and
    /// a batch's last rows, or those before an object saved on its own (a workout, a correlation), came
    /// in such odd sizes. PostgreSQL's array insert is one statement for any size.
    private func insertInPreparedSizes(_ rows: [PendingSample], settle: (Int, SaveOutcome) -> Void) throws(HealthError) {
        let limit = db.dialect.samplesPerInsert
        var start = 0
        while start < rows.count {
            let left = rows.count - start
            let size = db.dialect.insertsSampleArrays ? min(limit, left) : min(limit, 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount))
            try insert(rows[start..<start + size]) { [start] offset, outcome in settle(start + offset, outcome) }
            start += size
        }
    }

    /// Inserts the rows in one statement, then gives each the outcome it would have had alone: stored,
    /// or (its UUID already taken, by an earlier row too) a retry, handed to `settle` with the row's
    /// offset, or a refusal, thrown in the name of the row's object.
    private func insert(_ rows: ArraySlice<PendingSample>, settle: (Int, SaveOutcome) -> Void) throws(HealthError) {
        guard !rows.isEmpty else { return }
        // PostgreSQL's array insert decides each UUID itself (`SampleRow.arraysSQL`): a row it skipped,
        // a UUID repeated within the chunk too, is found below and compared with the stored row.
        let arrays = db.dialect.insertsSampleArrays
        let all = rows.map(\.row)
        let claimed = arrays ? [Bool](repeating: true, count: all.count) : try claimUUIDs(all)
        let inserted = claimed.allSatisfy { $0 } ? all : claimed.indices.filter { claimed[$0] }.map { all[$0] }
        var allInserted = inserted.count == rows.count
        if !inserted.isEmpty {
            let insert = try arrays ? prepared(assumesNewUUIDs ? .newSampleArrays : .sampleArrays, rows: 1)
                                    : prepared(.sampleInsert, rows: inserted.count)
            var bytes = BindingBytes(rows: arrays ? [] : inserted)
            // In this order: the statement's bindings are cleared before the bytes they point at are freed.
            defer { bytes.deallocate() }
            defer { insert.reset() }
            // Every parameter is bound below.
            insert.rewind()
            if arrays {
                SampleRow.bindArrays(inserted, to: insert)
            } else {
                for (offset, row) in inserted.enumerated() { row.bind(to: insert, at: Int32(offset * SampleRow.columns), bytes: &bytes) }
            }
            try insert.run()
            // Nearly always every row goes in: the count says so without a RETURNING set (which SQLite
            // gathers in a temporary table, a B-tree insert a row). Otherwise each row's own anchor
            // tells whether it went in.
            allInserted = allInserted && db.changes == rows.count
        }
        // PostgreSQL skipped some rows: one read of the chunk's UUIDs says which rows went in and which
        // skipped ones repeat what is stored, where a look-up a row cost two round trips each.
        let verdicts = arrays && !allInserted ? try storedVerdicts(all) : nil
        let stored = allInserted || verdicts != nil ? nil : try db.prepare("SELECT 1 FROM samples WHERE owner = ? AND type = ? AND anchor = ?")
        var runs = StoredRuns()
        for (offset, pending) in rows.enumerated() {
            do {
                let row = pending.row
                let verdict = verdicts?[offset]
                let wentIn = if allInserted || verdict == .wentIn { true } else if verdicts == nil && claimed[offset] { try Self.exists(row, stored) } else { false }
                if wentIn {
                    runs.add(pending)
                } else if verdict == .repeatsStored {
                    settle(offset, .alreadyStored)
                } else {
                    let sample = pending.batch.objects[pending.index]
                    settle(offset, try pending.saver.compareWithStored(sample, device: sample.device ?? pending.batch.defaultDevice, row: row))
                }
            } catch {
                throw error.objectIndex == nil ? error.at(index: pending.index) : error
            }
        }
        try runs.note()
    }

    /// What became of a row PostgreSQL's skipping insert was given (`storedVerdicts`).
    private enum StoredVerdict { case wentIn, repeatsStored }

    /// What the rows one insert stored add to the bookkeeping and the change feed, gathered per saver
    /// and type (a stream interleaves a few types): one note of each kind a run, where a note per row
    /// hashed its keys into the writer's caches and the feed's dictionaries once per sample.
    private struct StoredRuns {
        /// Rows of one saver and type. A struct, not a tuple: an array of tuples was copied through the
        /// runtime's generic tuple witnesses (with the sample's copy below, ≈0.5k instructions a saved sample).
        private struct Run {
            let saver: ObjectSaver, typeID: Int64, type: String
            var span: TimeSpan, longest: Microseconds
            /// The first row's place in its batch, for an error.
            let index: Int
        }

        private var runs: [Run] = []
        /// Each run's key, apart: searching `runs` itself copied (and retained) a run's saver per run and row.
        private var keys: [RunKey] = []

        private struct RunKey: Equatable {
            let typeID: Int64, source: Int64, owner: Int64
        }

        mutating func add(_ pending: PendingSample) {
            // The row's fields, not the sample's (a copy of the whole sample retained every string in it).
            let (saver, typeID, start, end) = (pending.saver, pending.row.type, pending.row.start, pending.row.start + pending.row.duration)
            let span = TimeSpan(start: start, end: end), duration = end - start
            let key = RunKey(typeID: typeID, source: saver.source, owner: saver.owner)
            if let run = keys.firstIndex(of: key) {
                runs[run].span = runs[run].span.union(span)
                runs[run].longest = max(runs[run].longest, duration)
            } else {
                runs.append(Run(saver: saver, typeID: typeID, type: pending.batch.objects[pending.index].type, span: span, longest: duration,
                                index: pending.index))
                keys.append(key)
            }
        }

        /// Notes every run; a failure is its first row's.
        func note() throws(HealthError) {
            for run in runs {
                do {
                    try run.saver.noteStored(type: run.type, typeID: run.typeID, span: run.span, longest: run.longest)
                } catch {
                    throw error.objectIndex == nil ? error.at(index: run.index) : error
                }
            }
        }
    }

    /// What PostgreSQL's skipping insert did with each of `rows` (`SampleRow.arraysSQL`), read in one
    /// statement an owner: the row went in (the stored row of its UUID has its anchor), or it was skipped
    /// and the stored row holds its values (a retry, as `ObjectSaver.compareWithStored` finds it), or
    /// neither (nil: compared the long way, which says why it is refused).
    private func storedVerdicts(_ rows: [SampleRow]) throws(HealthError) -> [StoredVerdict?] {
        var verdicts = [StoredVerdict?](repeating: nil, count: rows.count)
        var offsets: [WriteContext.Owned<UUID>: [Int]] = [:]
        for (offset, row) in rows.enumerated() { offsets[Owned(owner: row.owner, value: row.uuid), default: []].append(offset) }
        let read = try db.prepare(SampleRow.storedByUUIDsSQL)
        for owner in Set(rows.map(\.owner)) {
            read.reset()
            read.bind(1, owner)
            SampleRow.bindUUIDs(rows.lazy.filter { $0.owner == owner }.map(\.uuid), at: 2, to: read)
            while try read.step() {
                let uuid = read.uuid(SampleRow.comparedColumnCount)
                let anchor = read.int(SampleRow.comparedColumnCount + 1)
                for offset in offsets[Owned(owner: owner, value: uuid)] ?? [] {
                    verdicts[offset] = rows[offset].anchor == anchor ? .wentIn : rows[offset].matches(read) ? .repeatsStored : nil
                }
            }
        }
        read.reset()
        return verdicts
    }

    /// Whether `row` is stored under its own anchor, asked through `statement` (owner, type, anchor).
    private static func exists(_ row: SampleRow, _ statement: Statement?) throws(HealthError) -> Bool {
        guard let statement else { return false }
        statement.reset()
        statement.bind(all: [.int(row.owner), .int(row.type), .int(row.anchor)])
        let found = try statement.step()
        statement.reset()
        return found
    }

    /// The saver of a batch saved as its connection's revision; its ids come from the connection's
    /// shortcuts once they hold them.
    private func connectionSaver(_ batch: SaveBatch, insertRow: Statement) throws(HealthError) -> ObjectSaver {
        let owner = batch.owner.rawValue
        let shortcuts = batch.shortcuts
        let ids: (source: Int64, revision: Int64)
        if let known = shortcuts?.revision, known.owner == owner {
            ids = (known.source, known.revision)
        } else {
            ids = (try sourceID(batch.revision.source.bundleID, owner: owner), try revisionID(batch.revision, owner: owner))
            if let shortcuts { afterCommit { shortcuts.revision = (owner, ids.source, ids.revision) } }
        }
        return ObjectSaver(context: self, owner: owner, source: ids.source, revision: ids.revision, bundleID: batch.revision.source.bundleID,
                           insertRow: insertRow, shortcuts: shortcuts)
    }

    private static func keptRevision(_ object: Sample) throws(HealthError) -> SourceRevision {
        guard let revision = object.sourceRevision, !revision.source.name.isEmpty, !revision.source.bundleID.isEmpty else {
            throw HealthError.invalid("with keep_sources every object needs a complete source revision", field: "source_revision.source")
        }
        return revision
    }

    /// Marks `source` as imported into the owner's store unless the owner already holds data it saved
    /// (first time only: the mark keeps the time of the import that brought the source in).
    fileprivate func noteImport(owner: Int64, source: Int64) throws(HealthError) {
        let insert = try db.prepare("""
            INSERT INTO source_imports (owner, source, imported) SELECT ?, ?, ?
            WHERE NOT EXISTS (SELECT 1 FROM type_sources WHERE owner = ? AND source = ?) ON CONFLICT DO NOTHING
            """)
        insert.bind(1, owner); insert.bind(2, source); insert.bind(3, now); insert.bind(4, owner); insert.bind(5, source)
        try insert.run()
    }
}

/// A plain sample waiting to be inserted with others, its anchor already taken; `index` is its place in `batch`.
/// A class: the group's arrays, their chunks and the stored runs pass it on, and each copy of a struct
/// holding a whole sample, its device and its row copied (and released) every string in them: ≈3k
/// instructions a saved sample, against ≈1k for the object's allocation and its one teardown. The
/// sample stays in its batch (one reference), read there only when its row went in as a retry.
final class PendingSample {
    let index: Int
    let saver: ObjectSaver
    let batch: SaveBatch
    let row: SampleRow

    init(index: Int, saver: ObjectSaver, batch: SaveBatch, row: SampleRow) {
        self.index = index
        self.saver = saver
        self.batch = batch
        self.row = row
    }
}

/// Saves one object (and a correlation's children) for one batch. A class: every pending row and
/// stored run holds its batch's saver, and copying a struct of this many references retained each.
final class ObjectSaver {
    let context: WriteContext
    let owner: Int64
    let source: Int64
    let revision: Int64
    let bundleID: String
    /// `SampleRow.insertSQL` of one row, prepared once per batch: looking it up per sample hashed the whole statement text.
    let insertRow: Statement
    /// The connection's shortcuts for the device and type of its samples (for an import's sources,
    /// shortcuts of this batch alone).
    let shortcuts: SaveShortcuts?
    /// The shortcuts die with this batch, so an id is noted as soon as it is known: a batch is undone,
    /// and saved again with new savers, as a whole.
    let shortcutsLastOneBatch: Bool
    /// The types and devices this batch resolved (it dies with the batch, like an import's shortcuts).
    private var memo = SaverMemo()

    init(context: WriteContext, owner: Int64, source: Int64, revision: Int64, bundleID: String, insertRow: Statement,
         shortcuts: SaveShortcuts?, shortcutsLastOneBatch: Bool = false) {
        (self.context, self.owner, self.source, self.revision, self.bundleID) = (context, owner, source, revision, bundleID)
        (self.insertRow, self.shortcuts, self.shortcutsLastOneBatch) = (insertRow, shortcuts, shortcutsLastOneBatch)
    }

    func save(_ sample: Sample, device: Device?, parent: Int64?) throws(HealthError) -> SaveOutcome {
        let (type, typeID) = try sampleType(of: sample)
        var outcome = SaveOutcome.stored
        var parent = parent
        var replaced: (uuid: UUID, parent: Int64?)?
        if let sync = sample.syncKey, let existing = try syncMatch(sync.identifier), existing.uuid != sample.uuid {
            // docs/semantics.md decision 2: matched per (source, sync identifier); a greater version replaces.
            guard sync.version > existing.version else { return .keptExisting }
            // docs/semantics.md §7.3: the new object also takes the old one's place in its correlation, unless it is itself
            // a reading of a correlation saved now: it stays in that one (the old correlation loses the reading).
            if parent == nil, let oldParent = existing.parent {
                guard existing.type == typeID else {
                    let oldType = try context.registry.type(existing.type, owner: owner, context.db)
                    throw HealthError.invalid("sync identifier '\(sync.identifier)' belongs to a '\(oldType)' reading of a correlation; "
                                              + "its replacement must have that type, not '\(type.identifier)'", field: "metadata")
                }
                parent = oldParent
            }
            try context.deleteRow(owner: owner, .init(type: existing.type, anchor: existing.anchor), replaced: true)
            replaced = (existing.uuid, existing.parent)
            outcome = .replaced
        }
        let anchor = try context.nextAnchor(owner: owner)
        let row = try self.row(sample, type: type, typeID: typeID, anchor: anchor, device: device, parent: parent)
        guard try context.claimUUIDs([row])[0] else { return try compareWithStored(sample, device: device) }
        var bytes = BindingBytes(rows: CollectionOfOne(row))
        insertRow.rewind()
        row.bind(to: insertRow, at: 0, bytes: &bytes)
        let inserted: Bool
        do {
            // The bindings are cleared before the bytes they point at are freed, whether it ran or threw.
            defer { insertRow.reset(); bytes.deallocate() }
            try insertRow.run()
            inserted = context.db.changes > 0
        }
        guard inserted else { return try compareWithStored(sample, device: device) }
        if let replaced {
            // The workouts and the correlation that held the old object now hold something else.
            let holders = try context.moveWorkoutAssociations(owner: owner, from: replaced.uuid, to: sample.uuid)
            for holder in holders + (replaced.parent.map { [$0] } ?? []) {
                try context.reanchor(owner: owner, holder, bundleID: bundleID)
            }
        }
        try noteStored(sample, typeID: typeID)
        switch sample.body {
        case .correlation(let children):
            for child in children {
                _ = try save(child, device: child.device ?? device, parent: anchor)
            }
        case .workout(let workout):
            try insertWorkout(workout, sample: sample, anchor: anchor)
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            try insertDetail(sample, anchor: anchor)
        case .quantity, .category, .series:
            break
        }
        return outcome
    }

    /// The row of a plain sample (a quantity or category without sync identifier, saved on its own),
    /// which reads nothing stored before it is inserted, so it may wait to be inserted with others;
    /// nil for any other object.
    func plainRow(_ sample: Sample, device: Device?) throws(HealthError) -> SampleRow? {
        guard sample.syncKey == nil else { return nil }
        switch sample.body {
        case .quantity, .category: break
        case .correlation, .workout, .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment, .series: return nil
        }
        let (type, typeID) = try sampleType(of: sample)
        return try row(sample, type: type, typeID: typeID, anchor: try context.nextAnchor(owner: owner), device: device, parent: nil)
    }

    /// What a stored sample adds to the owner's bookkeeping and to the change feed.
    func noteStored(_ sample: Sample, typeID: Int64) throws(HealthError) {
        try noteStored(type: sample.type, typeID: typeID, span: TimeSpan(start: sample.start, end: sample.end),
                       longest: sample.end - sample.start)
    }

    /// What stored samples of one type add: they cover `span`, the longest lasting `longest`.
    func noteStored(type: String, typeID: Int64, span: TimeSpan, longest: Microseconds) throws(HealthError) {
        try context.noteTypeSource(owner: owner, type: typeID, source: source)
        try context.noteDuration(owner: owner, type: typeID, duration: longest)
        context.noteChange(owner: owner, type: type, span: span, bundleID: bundleID)
    }

    /// The id of a sample's device (nil for none): the connection's last one when it is the same,
    /// else one this batch resolved (the shortcut is not remembered: a lone sample's batch would
    /// allocate the memo's array for it).
    private func deviceID(_ device: Device?) throws(HealthError) -> Int64? {
        guard let device else { return nil }
        if let known = shortcuts?.device, known.owner == owner, known.device == device { return known.id }
        if let id = memo.device(device) { return id }
        guard let id = try context.deviceID(device, owner: owner) else { return nil }
        if let shortcuts { note { [owner] in shortcuts.device = (owner, device, id) } }
        memo.remember(device, id)
        return id
    }

    /// Sets a shortcut now or once the job is committed (see `shortcutsLastOneBatch`).
    private func note(_ set: @escaping () -> Void) {
        if shortcutsLastOneBatch { set() } else { context.afterCommit(set) }
    }

    /// The sample's type and its id, checked.
    private func sampleType(of sample: Sample) throws(HealthError) -> (HealthType, Int64) {
        let resolved = try typeAndID(of: sample)
        // The store computes durations from these; in range, no difference of two can overflow.
        try TimeRules.checkInstant(sample.start, field: "start_time")
        try TimeRules.checkInstant(sample.end, field: "end_time")
        return resolved
    }

    /// The connection's last type when it is the sample's (a decoded sample's name is the catalogue's
    /// own string, so comparing is checking it is the same string), else one this batch resolved, else
    /// the catalogue entry the sample carries (the decoder found it; no look-up by name again) with its
    /// id looked up. Only a miss of the shortcut is remembered: a lone sample's batch allocates nothing.
    private func typeAndID(of sample: Sample) throws(HealthError) -> (HealthType, Int64) {
        if let known = shortcuts?.type, known.owner == owner, known.type.identifier == sample.type { return (known.type, known.id) }
        if let known = memo.type(sample.type) { return known }
        guard let type = sample.catalogType, type.isSampleType else {
            throw HealthError.invalid("'\(sample.type)' is not a sample type", field: "type")
        }
        let id = try context.typeID(type.identifier, owner: owner)
        if let shortcuts { note { [owner] in shortcuts.type = (owner, type, id) } }
        memo.remember(sample.type, (type, id))
        return (type, id)
    }

    private func syncMatch(_ identifier: String) throws(HealthError) -> (anchor: Int64, uuid: UUID, version: Int64, type: Int64, parent: Int64?)? {
        // INDEXED BY: without statistics SQLite 3.40 prefers the primary key's `owner` prefix (a scan
        // of every sample of the owner per saved sample) over this partial, non-covering index.
        let query = try context.db.prepare("""
            SELECT anchor, uuid, sync_version, type, parent FROM samples \(context.db.dialect.indexedBy("samples_by_sync_id"))
            WHERE owner = ? AND sync_id = ? AND source = ?
            """)
        query.bind(1, owner)
        query.bind(2, identifier)
        query.bind(3, source)
        guard try query.step() else { return nil }
        return (query.int(0), query.uuid(1), query.int(2), query.int(3), query.optionalInt(4))
    }

    /// The sample's row. The unit is stored only when it is not the type's canonical one (the row
    /// then keeps the client's value too).
    private func row(_ sample: Sample, type: HealthType, typeID: Int64, anchor: Int64, device: Device?,
                     parent: Int64?) throws(HealthError) -> SampleRow {
        // The row keeps the end and creation time as offsets from the start; they must fit in 64 bits.
        let (duration, durationOverflow) = sample.end.subtractingReportingOverflow(sample.start)
        let (createdOffset, createdOverflow) = context.now.subtractingReportingOverflow(sample.start)
        guard !durationOverflow, !createdOverflow else {
            throw HealthError.invalid("start_time \(sample.start) is too far from end_time \(sample.end) or from now to be stored",
                                      field: "start_time")
        }
        var row = SampleRow(owner: owner, anchor: anchor, uuid: sample.uuid, type: typeID, start: sample.start, duration: duration,
                            source: source, revision: revision, createdOffset: createdOffset,
                            flags: sample.wasUserEntered ? SampleRows.userEntered : 0, parent: parent,
                            metadata: MetadataCoding.encode(sample.metadata))
        switch sample.body {
        case .quantity(let quantity, let count):
            guard let canonical = type.canonicalUnit, let canonicalUnit = type.unit else {
                throw HealthError.invalid("type '\(type.identifier)' does not hold quantities", field: "quantity")
            }
            if quantity.unit == canonical {
                row.value = quantity.value
            } else {
                row.value = try context.parsedUnit(quantity.unit).convert(quantity.value, to: canonicalUnit)
                row.unit = quantity.unit
                row.rawValue = quantity.value
            }
            row.count = count == 1 ? nil : count
        case .category(let value):
            row.category = value
        case .correlation:
            row.flags |= SampleRows.correlation
        case .workout:
            row.flags |= SampleRows.workout
        case .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment:
            row.flags |= SampleRows.detail
        case .series(let count):
            row.flags |= SampleRows.series
            row.count = count
        }
        row.device = try deviceID(device)
        if let sync = sample.syncKey {
            row.syncID = sync.identifier
            row.syncVersion = sync.version
        }
        if context.db.dialect.convertsMetadataUnitsBeforehand {
            for case .quantity(let quantity) in sample.metadata.values { try context.noteMetadataUnit(owner: owner, quantity.unit) }
        }
        return row
    }

    private func insertWorkout(_ workout: Workout, sample: Sample, anchor: Int64) throws(HealthError) {
        let row = try context.db.prepare("""
            INSERT INTO workouts (owner, anchor, activity_type, duration, explicit_duration, detail) VALUES (?, ?, ?, ?, ?, ?)
            """)
        row.bind(1, owner)
        row.bind(2, anchor)
        row.bind(3, Int64(workout.activityType))
        row.bind(4, workout.activeDuration(start: sample.start, end: sample.end))
        row.bind(5, workout.duration)
        row.bind(6, WorkoutCoding.encode(workout))
        try row.run()
        let stored = try context.db.prepare("SELECT 1 FROM samples WHERE \(context.db.dialect.sampleByUUID()) AND source = ?3")
        let link = try context.db.prepare("INSERT INTO workout_samples (owner, workout, sample_uuid) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
        for (index, uuid) in workout.associatedSampleUUIDs.enumerated() {
            // Only the app's own saved samples: another source's UUID reads as not stored (docs/semantics.md decision 7).
            stored.reset()
            stored.bind(1, owner)
            stored.bind(2, uuid)
            stored.bind(3, source)
            guard try stored.step() else {
                throw HealthError.invalid("Sample \(uuid) is not stored by this app, so it cannot be associated with the "
                    + "workout; save it first", field: "workout.associated_sample_uuids[\(index)]")
            }
            link.reset()
            link.bind(1, owner)
            link.bind(2, anchor)
            link.bind(3, uuid)
            try link.run()
        }
    }

    /// The body's row in `sample_details`; an ECG's voltages go to `series_chunks` under its UUID.
    private func insertDetail(_ sample: Sample, anchor: Int64) throws(HealthError) {
        guard let detail = KindCoding.encode(sample.body) else { return }
        let row = try context.db.prepare("INSERT INTO sample_details (owner, anchor, detail) VALUES (?, ?, ?)")
        row.bind(all: [.int(owner), .int(anchor), .blob(detail)])
        try row.run()
        if case .electrocardiogram(let ecg) = sample.body, !ecg.voltages.isEmpty {
            try SeriesChunks(db: context.db).append(owner: owner, series: sample.uuid, ecg.voltages)
        }
    }

    /// docs/semantics.md decision 1: the same UUID from the same source with identical content is a retry.
    /// With the `row` the sample would have been inserted as, a stored row holding the same values is
    /// known to be a retry without reading the sample back (every object of a re-import).
    func compareWithStored(_ sample: Sample, device: Device?, row: SampleRow? = nil) throws(HealthError) -> SaveOutcome {
        if let row, try storedRowMatches(row) { return .alreadyStored }
        guard let stored = try SampleRows(db: context.db, registry: context.registry).sample(owner: owner, uuid: sample.uuid) else {
            throw HealthError(.internalError, "UUID \(sample.uuid) conflicted but cannot be read back")
        }
        guard stored.sourceRevision?.source.bundleID == bundleID else {
            throw HealthError.invalid("UUID \(sample.uuid) is already used by an object saved by another source", field: "uuid")
        }
        let (saved, derivedTypes) = try asSavedWithDerivedTypes(stored)
        guard Self.comparable(saved, device: stored.device, derivedTypes: derivedTypes)
                == Self.comparable(Self.asStored(sample), device: device, derivedTypes: derivedTypes) else {
            throw HealthError.invalid("UUID \(sample.uuid) is already stored with different content", field: "uuid")
        }
        return .alreadyStored
    }

    /// Whether the stored sample of `row`'s UUID has its values: read by the key the claim found it at,
    /// else by UUID.
    private func storedRowMatches(_ row: SampleRow) throws(HealthError) -> Bool {
        let stored: Statement
        if let key = context.heldKeys[WriteContext.Owned(owner: owner, value: row.uuid)] {
            stored = try context.db.prepare("SELECT \(SampleRow.comparedColumns) FROM samples WHERE owner = ?1 AND type = ?3 AND anchor = ?4 AND uuid = ?2")
            stored.bind(3, key.type)
            stored.bind(4, key.anchor)
        } else {
            stored = try context.db.prepare("SELECT \(SampleRow.comparedColumns) FROM samples WHERE \(context.db.dialect.sampleByUUID())")
        }
        defer { stored.reset() }
        stored.bind(1, owner)
        stored.bind(2, row.uuid)
        return try stored.step() && row.matches(stored)
    }

    /// A sample to save as reading it back would return it: an ECG as its count of voltages (the
    /// voltages themselves are not compared).
    private static func asStored(_ sample: Sample) -> Sample {
        guard case .electrocardiogram(let ecg) = sample.body else { return sample }
        return Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
                      device: sample.device, body: .electrocardiogram(ecg.asSaved))
    }

    /// A stored workout without the routes FinishSeries associated with it later: they are no part of
    /// what was saved, so a retry of the workout (a re-import) still matches. With it, the types of its
    /// other associated samples: reads derive those statistics from them (docs/semantics.md §1.7), so an
    /// exported workout carries derived values where the saver gave its own, and neither is compared.
    private func asSavedWithDerivedTypes(_ stored: Sample) throws(HealthError) -> (Sample, derivedTypes: Set<String>) {
        let rows = try context.db.prepare("SELECT flags, type FROM samples WHERE \(context.db.dialect.sampleByUUID())")
        var types: Set<String> = []
        let saved = try stored.droppingAssociations { uuid throws(HealthError) in
            rows.reset()
            rows.bind(all: [.int(owner), .uuid(uuid)])
            guard try rows.step() else { return false }
            if rows.int(0) & SampleRows.series != 0 { return true }
            types.insert(try context.registry.type(rows.int(1), owner: owner, context.db))
            return false
        }
        rows.reset()
        return (saved, types)
    }

    /// The fields a retry must repeat exactly: everything but the store-stamped revision and time, and a
    /// workout's statistics of `derivedTypes` (derived from its associated samples on every read).
    private static func comparable(_ sample: Sample, device: Device?, derivedTypes: Set<String> = []) -> Sample {
        let effectiveDevice = device.flatMap { $0.isEmpty ? nil : $0 }
        let body: SampleBody
        switch sample.body {
        case .correlation(let children):
            body = .correlation(children.map { comparable($0, device: $0.device ?? effectiveDevice) }
                .sorted { $0.uuid.uuidString < $1.uuid.uuidString })
        case .workout(let w):
            // A derived duration reads back as its value, so compare active durations.
            body = .workout(Workout(activityType: w.activityType, duration: w.activeDuration(start: sample.start, end: sample.end),
                                    events: w.events,
                                    activities: w.activities, statistics: w.statistics.filter { !derivedTypes.contains($0.quantityType) },
                                    associatedSampleUUIDs: Array(Set(w.associatedSampleUUIDs)).sorted { $0.uuidString < $1.uuidString }))
        case .quantity, .category, .electrocardiogram, .audiogram, .stateOfMind, .scoredAssessment, .series:
            body = sample.body
        }
        return Sample(uuid: sample.uuid, type: sample.type, start: sample.start, end: sample.end, metadata: sample.metadata,
                      device: effectiveDevice, sourceRevision: nil, creationTime: nil, body: body)
    }
}

/// One `samples` row as a save inserts it.
struct SampleRow {
    let owner: Int64, anchor: Int64, uuid: UUID, type: Int64, start: Int64, duration: Int64
    var value: Double?, unit: String?, rawValue: Double?, count: Int64?, category: Int64?
    let source: Int64, revision: Int64
    var device: Int64?
    let createdOffset: Int64
    var flags: Int64
    var syncID: String?, syncVersion: Int64?
    let parent: Int64?
    let metadata: Data?

    /// Values per row.
    static let columns = 20

    init(owner: Int64, anchor: Int64, uuid: UUID, type: Int64, start: Int64, duration: Int64, source: Int64, revision: Int64,
         createdOffset: Int64, flags: Int64, parent: Int64?, metadata: Data?) {
        (self.owner, self.anchor, self.uuid, self.type, self.start, self.duration) = (owner, anchor, uuid, type, start, duration)
        (self.source, self.revision, self.createdOffset, self.flags, self.parent, self.metadata) = (source, revision, createdOffset, flags, parent, metadata)
    }

    /// An insert of `rows` rows that skips a row whose UUID the owner already holds.
    static func insertSQL(_ dialect: SQLDialect, rows: Int) -> String {
        let values = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        return """
            \(dialect.insertOrFail) INTO samples (\(insertedColumns))
            VALUES \(Array(repeating: values, count: rows).joined(separator: ", ")) ON CONFLICT DO NOTHING
            """
    }

    /// The columns an insert names, in `bind`'s order.
    static let insertedColumns = "owner, anchor, uuid, type, start_time, duration, value, unit, raw_value, count, "
        + "category, source, revision, device, created_offset, flags, sync_id, sync_version, parent, metadata"

    /// The columns `matches` reads: all but the anchor, the revision and the creation time, which a
    /// retry does not repeat.
    static let comparedColumns = "type, start_time, duration, value, unit, raw_value, count, category, source, device, flags, "
        + "sync_id, sync_version, parent, metadata"
    /// How many columns `comparedColumns` names (the column after them is the first a query adds).
    static let comparedColumnCount: Int32 = 15

    /// Whether `stored`'s current row (`comparedColumns`) holds this row's values. Equal rows are equal
    /// samples as a retry compares them; unequal ones may still be (a correlation's reading saved again
    /// on its own), so a mismatch only means the samples must be compared.
    func matches(_ stored: Statement) -> Bool {
        stored.int(0) == type && stored.int(1) == start && stored.int(2) == duration && stored.optionalDouble(3) == value
            && stored.text(4) == unit && stored.optionalDouble(5) == rawValue && stored.optionalInt(6) == count
            && stored.optionalInt(7) == category && stored.int(8) == source && stored.optionalInt(9) == device
            && stored.int(10) == flags && stored.text(11) == syncID && stored.optionalInt(12) == syncVersion
            && stored.optionalInt(13) == parent && stored.blob(14) == metadata
    }

    /// Binds the row's values to parameters `base + 1` to `base + columns`, its UUID and unit copied
    /// into `bytes` and bound from there (so `bytes` must outlive the statement's next `reset()`).
    func bind(to statement: Statement, at base: Int32, bytes: inout BindingBytes) {
        statement.bind(base + 1, owner)
        statement.bind(base + 2, anchor)
        statement.bind(base + 3, borrowing: bytes.copy(uuid), text: false)
        statement.bind(base + 4, type)
        statement.bind(base + 5, start)
        statement.bind(base + 6, duration)
        statement.bind(base + 7, value)
        if let unit { statement.bind(base + 8, borrowing: bytes.copy(unit), text: true) } else { statement.bind(base + 8, nil as String?) }
        statement.bind(base + 9, rawValue)
        statement.bind(base + 10, count)
        statement.bind(base + 11, category)
        statement.bind(base + 12, source)
        statement.bind(base + 13, revision)
        statement.bind(base + 14, device)
        statement.bind(base + 15, createdOffset)
        statement.bind(base + 16, flags)
        statement.bind(base + 17, syncID)
        statement.bind(base + 18, syncVersion)
        statement.bind(base + 19, parent)
        statement.bind(base + 20, metadata)
    }
}

/// The types and devices one batch's saver resolved. A batch names few of each (a stream interleaves
/// its types sample by sample, so the connection's last-one shortcut missed nearly every time), and
/// comparing with them costs less than hashing a type name or a device's eight fields into the
/// writer's caches, and than noting each miss as a shortcut to set at commit.
struct SaverMemo {
    private var types: [(name: String, type: HealthType, id: Int64)] = []
    private var devices: [(device: Device, id: Int64)] = []
    /// Beyond this many of either, a batch (an import of many devices) looks the rest up as before.
    private static let limit = 32

    func type(_ name: String) -> (HealthType, Int64)? {
        for entry in types where entry.name == name { return (entry.type, entry.id) }
        return nil
    }

    mutating func remember(_ name: String, _ resolved: (HealthType, Int64)) {
        if types.count < Self.limit { types.append((name, resolved.0, resolved.1)) }
    }

    /// Where the last device was found: a stream sends a device's readings together.
    private var lastDevice = 0

    mutating func device(_ device: Device) -> Int64? {
        if lastDevice < devices.count, devices[lastDevice].device == device { return devices[lastDevice].id }
        guard let found = devices.firstIndex(where: { $0.device == device }) else { return nil }
        lastDevice = found
        return devices[found].id
    }

    mutating func remember(_ device: Device, _ id: Int64) {
        if devices.count < Self.limit { devices.append((device, id)) }
    }
}
