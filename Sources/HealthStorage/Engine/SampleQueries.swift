import Foundation
import HealthModel

/// The read paths, each run on a reader thread.
extension ReadContext {
    /// An owner's readable rows of `types` matching `predicate`: the table to read (`s`) and the
    /// WHERE clause (without the word). Each way of seeing a type is a part of its own, read through
    /// an index that holds nothing the caller may not see, so no query's cost depends on data it
    /// may not read (docs/semantics.md decision 7): the types it reads in full; its own rows of the others; and other
    /// sources' correlations found through their readable readings (§3.6). Several parts are read
    /// as one UNION ALL. `bySource` reads each type read in full source by source (`typeBySource`):
    /// for a read in start order or of a date range, which then merges or seeks each source's range
    /// of `samples_by_source`.
    func filter(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                table: PredicateSQL.Table, bySource: Bool = false) throws(HealthError) -> FilterPart {
        let parts = try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: table, bySource: bySource)
        guard let first = parts.first else { return ("\(table == .samples ? "samples" : "tombstones") s", "FALSE", [], false) }
        guard parts.count > 1 else { return first }
        let union = parts.map { "SELECT * FROM \($0.from) WHERE \($0.sql)" }.joined(separator: " UNION ALL ")
        return ("(\(union)) s", "TRUE", parts.flatMap(\.arguments), false)
    }

    /// A table to read (`s`), the WHERE clause (without the word) and its arguments; `everyType` when it
    /// reads every stored type of the owner with no type condition.
    typealias FilterPart = (from: String, sql: String, arguments: [SQLValue], everyType: Bool)

    /// The parts `filter` reads as one UNION ALL. After an anchor, each fully readable type is a part
    /// of its own, read through (owner, type, anchor) (the samples table's primary key, tombstones'
    /// `tombstones_by_type`), or all of them one part when they are every stored type: tombstones read
    /// through their primary key (owner, anchor), samples through `samples_by_anchor` where the engine
    /// has it (`SQLDialect.readsSamplesByAnchor`). Each such part yields its rows in anchor order
    /// without a sort, for `queryAnchored` to merge.
    private func filterParts(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                             table: PredicateSQL.Table, bySource: Bool = false, afterAnchor: Int64? = nil,
                             through: Int64? = nil) throws(HealthError) -> [FilterPart] {
        let name = table == .samples ? "samples" : "tombstones"
        func part(_ types: [(type: HealthType, id: Int64)], _ from: String, _ visible: (sql: String, arguments: [SQLValue])?,
                  everyType: Bool = false) throws(HealthError) -> FilterPart {
            var builder = PredicateSQL(table: table, dialect: db.dialect, owner: owner, types: types, metadataUnits: try db.metadataUnits(owner: owner, for: predicate))
            var clauses = ["s.owner = ?"]
            if !everyType { clauses.append("s.type IN (" + types.map { String($0.id) }.joined(separator: ", ") + ")") }
            var arguments: [SQLValue] = [.int(owner)]
            if let afterAnchor {
                clauses.append("s.anchor > ?")
                arguments.append(.int(afterAnchor))
            }
            if let through {
                clauses.append("s.anchor <= ?")
                arguments.append(.int(through))
            }
            if let predicate {
                clauses.append(try builder.clause(predicate))
                if afterAnchor == nil, let hint = builder.indexHint(for: predicate) { clauses.append(hint) }
            }
            arguments += builder.arguments
            if let visible {
                clauses.append(visible.sql)
                arguments += visible.arguments
            }
            return (from, clauses.joined(separator: " AND "), arguments, everyType)
        }
        let full = types.filter { scope.canReadAll($0.type.identifier) }
        let restricted = types.filter { !scope.canReadAll($0.type.identifier) }
        var parts: [FilterPart] = []
        let byAnchor = table == .tombstones || db.dialect.readsSamplesByAnchor
        if afterAnchor != nil, byAnchor, restricted.isEmpty, try includesEveryStoredType(full, owner: owner) {
            // Every row of the owner is of a type asked for and read in full, so reading them all costs
            // nothing the caller may not see: tombstones' primary key (owner, anchor), and
            // `samples_by_anchor` where there is one, yield them in anchor order by themselves.
            parts.append(try part(full, "\(name) s", nil, everyType: true))
        } else if afterAnchor != nil {
            // Anchored queries read each type's changes after the anchor through (owner, type, anchor).
            let byType = table == .samples ? db.dialect.byPrimaryKey : db.dialect.indexedBy("tombstones_by_type")
            for type in full { parts.append(try part([type], "\(name) s \(byType)", nil)) }
        } else if bySource, table == .samples, let sources = try db.mergeableSources(owner: owner, typeIDs: full.map(\.id)) {
            for (type, sources) in zip(full, sources) {
                for source in sources {
                    parts.append(try part([type], "samples s \(db.dialect.indexedBy("samples_by_source"))", ("s.source = ?", [.int(source)])))
                }
            }
        } else if !full.isEmpty {
            parts.append(try part(full, "\(name) s", nil))
        }
        if let readable = scope.readableTypes, !restricted.isEmpty {
            let caller = SQLValue.int(try sourceID(scope.callerBundleID, owner: owner) ?? -1)
            parts.append(try part(restricted, "\(name) s \(db.dialect.indexedBy("\(name)_by_source"))", ("s.source = ?", [caller])))
            let correlations = restricted.filter { !($0.type.correlationContents ?? []).isDisjoint(with: readable) }
            if !correlations.isEmpty {
                let readings = Set(correlations.flatMap { $0.type.correlationContents ?? [] }).intersection(readable).sorted()
                let byReadings = correlationsByReadings(readings, owner: owner, caller: caller, table: table, afterAnchor: afterAnchor)
                parts.append(try part(correlations, "\(name) s", byReadings))
            }
        }
        return parts
    }

    /// Whether `types` hold every sample type the owner's store has interned (unknown identifiers
    /// counting as sample types), so that every sample or tombstone row is of one of them.
    private func includesEveryStoredType(_ types: [(type: HealthType, id: Int64)], owner: Int64) throws(HealthError) -> Bool {
        let ids = Set(types.map(\.id))
        let all = try db.prepare("SELECT id, identifier FROM types WHERE owner = ?")
        all.bind(1, owner)
        var every = true
        while try all.step() {
            if !ids.contains(all.int(0)), all.text(1).flatMap(TypeCatalog.type)?.isSampleType != false { every = false }
        }
        return every
    }

    /// Other sources' correlations holding a reading of one of `readings`, found from those
    /// readings (their `parent` is the correlation's current anchor; a deleted reading's, the
    /// deleted correlation's `live_anchor`), so correlations without one are never read at all.
    private func correlationsByReadings(_ readings: [String], owner: Int64, caller: SQLValue, table: PredicateSQL.Table,
                                        afterAnchor: Int64?) -> (sql: String, arguments: [SQLValue]) {
        let names = readings.map { SQLValue.text($0) }
        let readingsByType = table == .samples ? "samples c \(db.dialect.indexedBy("samples_by_reading"))"
            : "tombstones c \(db.dialect.indexedBy("tombstones_by_type"))"
        var found = "SELECT c.parent FROM \(readingsByType) WHERE c.owner = ? AND c.parent IS NOT NULL"
            + " AND c.type IN (SELECT id FROM types WHERE owner = ? AND " + PredicateSQL.isIn("identifier", names.map { _ in "?" }) + ")"
        var arguments: [SQLValue] = [caller, .int(owner), .int(owner)] + names
        // Live correlations changed after the anchor are those whose readings point above it.
        if table == .samples, let afterAnchor {
            found += " AND c.parent > ?"
            arguments.append(.int(afterAnchor))
        }
        return ("s.source <> ? AND \(table == .samples ? "s.anchor" : "s.live_anchor") IN (\(found))", arguments)
    }

    /// Read scope on a correlation's readings: the caller's own, and those of types it reads.
    private func childFilter(_ scope: ReadScope, owner: Int64) throws(HealthError) -> (sql: String, arguments: [SQLValue])? {
        guard let readable = scope.readableTypes else { return nil }
        let names = readable.sorted().map { SQLValue.text($0) }
        let sql = "(s.source = ? OR s.type IN (SELECT id FROM types WHERE owner = ? AND " + PredicateSQL.isIn("identifier", names.map { _ in "?" }) + "))"
        return (sql, [.int(try sourceID(scope.callerBundleID, owner: owner) ?? -1), .int(owner)] + names)
    }

    func querySamples(owner: Int64, types: [String], predicate: QueryPredicate?, sort: [SampleSortDescriptor],
                      limit: Int, scope: ReadScope) throws(HealthError) -> [Sample] {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        let resolved = try resolve(types, owner: owner)
        guard !resolved.isEmpty else { return [] }
        let inStartOrder = sort.first?.key == .startDate
        let (from, whereSQL, arguments, _) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples,
                                                        bySource: inStartOrder || PredicateSQL.boundsStarts(predicate))
        var order = sort.map { descriptor in
            let key = switch descriptor.key {
            case .startDate: "s.start_time"
            case .endDate: "s.end_time"
            case .workoutDuration: "(SELECT w.duration FROM workouts w WHERE w.owner = s.owner AND w.anchor = s.anchor)"
            }
            return key + (descriptor.descending ? " DESC" : " ASC")
        }
        order.append("s.anchor ASC")
        var sql = "SELECT \(SampleRows.columns) FROM \(from) WHERE \(whereSQL) ORDER BY " + order.joined(separator: ", ")
        if limit > 0 { sql += " LIMIT \(limit)" }
        return try rows.samples(sql, arguments, childFilter: try childFilter(scope, owner: owner))
    }

    func queryAnchored(owner: Int64, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                       scope: ReadScope) throws(HealthError) -> AnchoredResult {
        try limitedAnchored(owner: owner, types: types, predicate: predicate, anchor: anchor, limit: limit, scope: scope).result
    }

    /// `queryAnchored`, with its samples also as a part (nil with no limit, whose samples were read whole).
    func limitedAnchored(owner: Int64, types: [String], predicate: QueryPredicate?, anchor: Data?, limit: Int,
                         scope: ReadScope) throws(HealthError) -> (result: AnchoredResult, part: AnchoredPart?) {
        guard limit >= 0 else { throw HealthError.invalid("limit must be 0 (no limit) or positive, got \(limit)", field: "limit") }
        guard limit > 0 else {
            var samples = SampleTable()
            let (head, rest) = try anchoredHead(owner: owner, types: types, predicate: predicate, anchor: anchor, scope: scope,
                                                partRows: .max) { samples = $0.samples; return true }
            if let rest {
                var rows = try sampleTableRows(scope, owner: owner)
                _ = try readSamples(rest, after: rest.after, through: rest.last, partRows: .max, into: &rows) { samples = $0.samples; return true }
            }
            return (AnchoredResult(samples: samples, deleted: head.deleted, newAnchor: head.newAnchor, scannedThrough: head.scannedThrough), nil)
        }
        let window = try anchoredWindow(owner: owner, types: types, anchor: anchor, scope: scope)
        guard !window.types.isEmpty else { return (window.nothing, nil) }
        var samples = try sampleTableRows(scope, owner: owner)
        var sampleAnchors: [Int64] = []
        try mergedByAnchor(owner: owner, types: window.types, predicate: predicate, scope: scope, table: .samples,
                           after: window.start.sequence, columns: SampleRows.columns, anchorColumn: 1, limit: limit) { anchor, row throws(HealthError) in
            sampleAnchors.append(anchor)
            try samples.append(from: row)
            return true
        }
        let (deleted, deletedAnchors) = try deletions(owner: owner, types: window.types, predicate: predicate, scope: scope,
                                                      after: window.start.sequence, limit: limit)

        let taken = Self.firstInAnchorOrder(sampleAnchors, deletedAnchors, limit: limit)
        guard let lastTaken = taken.lastTaken else { return (window.nothing, nil) }
        let pageSamples = taken.samples == sampleAnchors.count ? samples.table : samples.table.rows(0..<taken.samples)
        let pageDeleted = taken.deleted == deletedAnchors.count ? deleted : Array(deleted[..<taken.deleted])
        let part = AnchoredPart(samples: pageSamples, anchors: Array(sampleAnchors.prefix(taken.samples)), owner: owner,
                                horizon: window.start.horizon, key: anchorKey)
        guard taken.complete else {
            // Cut by the limit: the caller has not caught up yet, so it keeps the horizon it started from.
            let next = AnchorToken(owner: owner, sequence: lastTaken, horizon: window.start.horizon).encoded(key: anchorKey)
            return (AnchoredResult(samples: pageSamples, deleted: pageDeleted, newAnchor: next), part)
        }
        return (AnchoredResult(samples: pageSamples, deleted: pageDeleted, newAnchor: window.anchor(after: lastTaken),
                               scannedThrough: window.scanned), part)
    }

    /// The start of an anchored read with no limit: its answer without samples — deletions and
    /// anchors — and what is left to read of its samples (nil: nothing), so a caller can send each
    /// part of them while the next is read. Every page carries the answer's anchor, so the last
    /// sample's anchor is found first: by one MAX per filter part where that is an index seek (each
    /// part of a type read in full with no predicate: the last key of (owner, type, anchor)), or
    /// nearly one (a predicate that only leaves out readings inside correlations, an export's: the
    /// MAX steps back past the readings saved last). Where it is not (another predicate that
    /// `QueryPredicate.reduced` leaves, or the caller's own rows of types it may not read), a MAX
    /// would step through the rows the read visits a second time, so the samples are read here
    /// instead, given to `part` in tables of at most `partRows` rows, and nothing is left to read.
    func anchoredHead(owner: Int64, types: [String], predicate asked: QueryPredicate?, anchor: Data?, scope: ReadScope, partRows: Int,
                      part: (AnchoredPart) -> Bool) throws(HealthError) -> (head: AnchoredResult, rest: AnchoredSamples?) {
        let window = try anchoredWindow(owner: owner, types: types, anchor: anchor, scope: scope)
        guard !window.types.isEmpty else { return (window.nothing, nil) }
        let predicate = asked?.reduced(forTypes: window.types.map(\.type.identifier))
        let after = window.start.sequence
        let (deleted, deletedAnchors) = try deletions(owner: owner, types: window.types, predicate: predicate, scope: scope, after: after, limit: 0)
        func samples(last: Int64?) -> AnchoredSamples {
            AnchoredSamples(owner: owner, types: window.types, predicate: predicate, scope: scope, after: after, last: last, storeAnchor: window.last,
                            horizon: window.start.horizon, key: anchorKey)
        }
        let seeks = (predicate?.leavesOutOnlyCorrelationReadings ?? true) && window.types.allSatisfy { scope.canReadAll($0.type.identifier) }
        let lastSample: Int64?
        if seeks {
            lastSample = try lastSampleAnchor(owner: owner, types: window.types, predicate: predicate, scope: scope, after: after)
        } else {
            var rows = try sampleTableRows(scope, owner: owner)
            lastSample = try readSamples(samples(last: nil), after: after, through: nil, partRows: partRows, into: &rows, part: part).lastRead
        }
        let lastTaken = [lastSample, deletedAnchors.last].compactMap { $0 }.max()
        let head = lastTaken.map { AnchoredResult(samples: [], deleted: deleted, newAnchor: window.anchor(after: $0), scannedThrough: window.scanned) }
            ?? window.nothing
        guard seeks, let lastSample else { return (head, nil) }
        return (head, samples(last: lastSample))
    }

    /// Reads the samples of `samples` changed after `after` and through `through` (nil: to the end
    /// of the read) into parts of at most `partRows` rows, each given to `part` until it returns
    /// false; the last part of the range is given even when short, so ranges read apart join in
    /// order. Returns whether `part` asked for more and the anchor of the last sample read. A range
    /// ending at the read's last sample must end exactly there: anything else means the answer's
    /// anchor is not its last sample's.
    func readSamples(_ samples: AnchoredSamples, after: Int64, through: Int64?, partRows: Int, into rows: inout SampleTableRows,
                     part: (AnchoredPart) -> Bool) throws(HealthError) -> (reading: Bool, lastRead: Int64?) {
        // The range ending at the last sample is left unbounded, so a row beyond it would be seen.
        let bound = through == samples.last ? nil : through
        var lastRead: Int64?
        var reading = true
        var anchors: [Int64] = []
        func taken() -> AnchoredPart {
            defer { anchors.removeAll(keepingCapacity: true) }
            return samples.part(rows.takeTable(), anchors: anchors)
        }
        try mergedByAnchor(owner: samples.owner, types: samples.types, predicate: samples.predicate, scope: samples.scope, table: .samples,
                           after: after, through: bound, columns: SampleRows.columns, anchorColumn: 1, limit: 0,
                           pagedTo: through.flatMap { end in partRows < .max ? (end, Int64(partRows)) : nil }) { anchor, row throws(HealthError) in
            lastRead = anchor
            try rows.append(from: row)
            anchors.append(anchor)
            if rows.table.count >= partRows { reading = part(taken()) }
            return reading
        }
        guard reading else { return (false, lastRead) }
        if let through, bound == nil, lastRead != through {
            throw HealthError(.internalError, "an anchored read ended at anchor \(lastRead ?? 0), not at its last sample's \(through)")
        }
        if !rows.table.isEmpty { reading = part(taken()) }
        return (reading, lastRead)
    }

    /// The sample rows of a table read for scope `scope`, collected as `readSamples` needs them.
    func sampleTableRows(_ scope: ReadScope, owner: Int64) throws(HealthError) -> SampleTableRows {
        SampleTableRows(rows, childFilter: try childFilter(scope, owner: owner))
    }

    /// Where an anchored read starts and what it answers with: the caller's anchor checked against
    /// the store, the types to read, and the anchors it may return.
    private func anchoredWindow(owner: Int64, types: [String], anchor: Data?, scope: ReadScope) throws(HealthError) -> AnchoredWindow {
        let last = try lastAnchor(owner: owner)
        let resolved = try resolve(types, owner: owner)
        let horizon = try purgeHorizon(owner: owner, types: resolved, scope: scope)
        // No anchor: nothing seen yet, and nothing at or below the horizon is left to see.
        var start = AnchorToken(owner: owner, sequence: 0, horizon: horizon)
        if let anchor {
            start = try AnchorToken(decoding: anchor, key: anchorKey, owner: owner)
            guard start.sequence <= last, start.horizon <= last else {
                throw HealthError(.invalidAnchor, "anchor is ahead of this store; was the store restored?", field: "anchor")
            }
            // A holder given nothing cannot miss the deletion of something it saw; otherwise deletions
            // above both its position and the horizon it synced against must all still be stored.
            guard start.sequence == 0 || max(start.sequence, start.horizon) >= horizon else {
                throw HealthError(.anchorExpired, "deletions this anchor may still need were purged; resync without an anchor", field: "anchor")
            }
        }
        let unchanged = anchor ?? AnchorToken(owner: owner, sequence: 0, horizon: 0).encoded(key: anchorKey)
        let scanned = AnchorToken(owner: owner, sequence: last, horizon: horizon).encoded(key: anchorKey)
        return AnchoredWindow(owner: owner, types: resolved, start: start, horizon: horizon, last: last, key: anchorKey,
                              nothing: AnchoredResult(samples: [], deleted: [], newAnchor: unchanged, scannedThrough: scanned))
    }

    /// An anchored read's bounds (see `anchoredWindow`).
    private struct AnchoredWindow {
        let owner: Int64
        let types: [(type: HealthType, id: Int64)]
        let start: AnchorToken
        let horizon: Int64
        /// The owner's last anchor in the read's snapshot.
        let last: Int64
        let key: Data
        /// The answer when nothing is returned: the caller's anchor unchanged.
        let nothing: AnchoredResult
        var scanned: Data { nothing.scannedThrough }

        /// The anchor of a whole answer whose last object is at `lastTaken`.
        func anchor(after lastTaken: Int64) -> Data {
            AnchorToken(owner: owner, sequence: lastTaken, horizon: horizon).encoded(key: key)
        }
    }

    /// The first `limit` (0: all) deletions after `after`, with their anchors.
    private func deletions(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                           after: Int64, limit: Int) throws(HealthError) -> ([DeletedObject], [Int64]) {
        var deleted: [DeletedObject] = []
        var anchors: [Int64] = []
        try mergedByAnchor(owner: owner, types: types, predicate: predicate, scope: scope, table: .tombstones,
                           after: after, columns: "s.anchor, s.uuid, s.type, s.metadata", anchorColumn: 0, limit: limit) { anchor, row throws(HealthError) in
            anchors.append(anchor)
            deleted.append(DeletedObject(uuid: row.uuid(1), type: try registry.type(row.int(2), owner: owner, db),
                                         metadata: try MetadataCoding.decode(row.blob(3))))
            return true
        }
        return (deleted, anchors)
    }

    /// The anchor of the last sample an anchored read after `after` of types read in full returns
    /// (nil: none), without reading the rows: each part's MAX is the last key of its range of the
    /// primary key (owner, type, anchor) or of `samples_by_anchor`, one seek, stepping back from it
    /// past the rows `predicate` leaves out.
    private func lastSampleAnchor(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                                  after: Int64) throws(HealthError) -> Int64? {
        var last: Int64?
        for part in try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: .samples, afterAnchor: after) {
            let statement = try db.prepareOnce("SELECT MAX(s.anchor) FROM \(part.from) WHERE \(part.sql)")
            statement.bind(all: part.arguments)
            if try statement.step(), let anchor = statement.optionalInt(0) { last = max(last ?? anchor, anchor) }
        }
        return last
    }

    /// Visits the first `limit` (0: all) rows of `table` changed after `after` (and through `through`) with their anchors, in
    /// anchor order, until `visit` returns false: each filter part is read by its own statement in anchor order and
    /// merged here, so SQLite never sorts the whole answer. With `pagedTo` and no `limit`, a read that is one part on an
    /// engine that `readsSamplesByAnchor`, when that part is every stored type, goes in windows of that many anchors up to `end` (see `pages`).
    private func mergedByAnchor(owner: Int64, types: [(type: HealthType, id: Int64)], predicate: QueryPredicate?, scope: ReadScope,
                                table: PredicateSQL.Table, after: Int64, through: Int64? = nil, columns: String, anchorColumn: Int32, limit: Int,
                                pagedTo: (end: Int64, anchors: Int64)? = nil,
                                visit: (_ anchor: Int64, Statement) throws(HealthError) -> Bool) throws(HealthError) {
        let parts = try filterParts(owner: owner, types: types, predicate: predicate, scope: scope, table: table, afterAnchor: after, through: through)
        // Only the every-type part: a window over one type's anchors of a large store could hold none
        // of its rows, and a rare type would pay one statement per empty window.
        if let pages = pagedTo, limit == 0, db.dialect.readsSamplesByAnchor, parts.count == 1, parts[0].everyType {
            return try self.pages(of: parts[0], after: after, end: pages.end, columns: columns, anchorColumn: anchorColumn,
                                  pageAnchors: pages.anchors, visit: visit)
        }
        var streams: [Statement] = []
        // Heads of the streams not yet exhausted, by descending anchor: the next row is the last.
        var heads: [(anchor: Int64, stream: Int)] = []
        func advance(_ stream: Int) throws(HealthError) {
            guard try streams[stream].step() else { return }
            let anchor = streams[stream].int(anchorColumn)
            var low = 0, high = heads.count
            while low < high {
                let middle = (low + high) / 2
                if heads[middle].anchor > anchor { low = middle + 1 } else { high = middle }
            }
            heads.insert((anchor, stream), at: low)
        }
        for part in parts {
            let statement = try db.prepareOnce("SELECT \(columns) FROM \(part.from) WHERE \(part.sql) ORDER BY s.anchor" + (limit > 0 ? " LIMIT \(limit)" : ""))
            statement.bind(all: part.arguments)
            streams.append(statement)
            try advance(streams.count - 1)
        }
        var visited = 0
        while limit == 0 || visited < limit, let head = heads.popLast() {
            visited += 1
            guard try visit(head.anchor, streams[head.stream]) else { return }
            try advance(head.stream)
        }
    }

    /// Visits the rows of `part` after `after` in anchor order until `visit` returns false, read by one
    /// statement a window of `pageAnchors` anchors, the last window open above (`part` bounds it, or
    /// not) once it reaches `end`. A statement over a whole range lets PostgreSQL's planner take a
    /// bitmap scan and a sort of every row of it (it judges a multi-column index's order by its
    /// leading column), or, on statistics from before a fill, a sort of all the rest of the range for
    /// each LIMIT page; a window bounds either to one part's rows. Each window's statement is started
    /// (`Statement.start`) once the last window's answer has come and before its rows are visited, so
    /// PostgreSQL runs it while the caller works on those. Every window runs in the caller's
    /// transaction, so all of them read one snapshot, and in index order (`Database.inIndexOrder`): a
    /// window's rows come from `samples_by_anchor` in anchor order, never sorted.
    private func pages(of part: FilterPart, after: Int64, end: Int64, columns: String, anchorColumn: Int32, pageAnchors: Int64,
                       visit: (_ anchor: Int64, Statement) throws(HealthError) -> Bool) throws(HealthError) {
        func window(after low: Int64) throws(HealthError) -> Statement {
            let open = low + pageAnchors >= end
            let window = try db.prepareOnce("SELECT \(columns) FROM \(part.from) WHERE \(part.sql) AND s.anchor > ?"
                                            + (open ? "" : " AND s.anchor <= ?") + " ORDER BY s.anchor")
            window.bind(all: part.arguments + [.int(low)] + (open ? [] : [.int(low + pageAnchors)]))
            return window
        }
        try db.inIndexOrder { () throws(HealthError) in
            var low = after
            var current = try window(after: low)
            while true {
                let high = low + pageAnchors
                var more = try current.step()
                let next = high >= end ? nil : try window(after: high)
                next?.start()
                while more {
                    guard try visit(current.int(anchorColumn), current) else { return }
                    more = try current.step()
                }
                guard let next else { return }
                current = next
                low = high
            }
        }
    }

    /// How many of each list's first objects the first `limit` (0: all) of both in anchor order
    /// take; `lastTaken` is the anchor of the last object taken, `complete` whether nothing was left out.
    private static func firstInAnchorOrder(_ samples: [Int64], _ deleted: [Int64],
                                           limit: Int) -> (samples: Int, deleted: Int, lastTaken: Int64?, complete: Bool) {
        let total = samples.count + deleted.count
        let count = limit > 0 ? min(limit, total) : total
        var i = 0, j = 0
        if count == total {
            (i, j) = (samples.count, deleted.count)
        } else {
            while i + j < count {
                if j >= deleted.count || (i < samples.count && samples[i] < deleted[j]) { i += 1 } else { j += 1 }
            }
        }
        // Each list is in anchor order, so the last taken is the larger of the two last taken.
        let lastTaken = count == 0 ? nil : max(i > 0 ? samples[i - 1] : .min, j > 0 ? deleted[j - 1] : .min)
        return (i, j, lastTaken, limit == 0 || total < limit)
    }

    /// What `querySamples` would return, counted per type, source and device in one GROUP BY over the
    /// same filter (so a read-restricted caller counts only what it could read); each source is named
    /// by its latest revision among the counted rows.
    func countSamples(owner: Int64, types: [String], predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [SampleCount] {
        let resolved = try resolve(types, owner: owner)
        guard !resolved.isEmpty else { return [] }
        let (from, whereSQL, arguments, _) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples,
                                                        bySource: PredicateSQL.boundsStarts(predicate))
        let statement = try db.prepareOnce("""
            SELECT s.type, MAX(s.revision), s.device, COUNT(*) FROM \(from) WHERE \(whereSQL)
            GROUP BY s.type, s.source, s.device
            """)
        statement.bind(all: arguments)
        var counts: [(count: SampleCount, device: Int64)] = []
        while try statement.step() {
            let device = statement.optionalInt(2)
            counts.append((SampleCount(type: try registry.type(statement.int(0), owner: owner, db),
                                       source: try registry.revision(statement.int(1), owner: owner, db).source,
                                       device: try device.map { id throws(HealthError) in try registry.device(id, owner: owner, db) },
                                       count: UInt64(statement.int(3))), device ?? -1))
        }
        return counts.sorted { ($0.count.type, $0.count.source.bundleID, $0.device) < ($1.count.type, $1.count.source.bundleID, $1.device) }
            .map(\.count)
    }

    /// Distinct sources of readable rows, named by their latest revision.
    func querySources(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope) throws(HealthError) -> [Source] {
        let resolved = try resolve([type], owner: owner)
        guard !resolved.isEmpty else { return [] }
        let (from, whereSQL, arguments, _) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples,
                                                        bySource: PredicateSQL.boundsStarts(predicate))
        let statement = try db.prepareOnce("SELECT MAX(s.revision), s.source FROM \(from) WHERE \(whereSQL) GROUP BY s.source")
        statement.bind(all: arguments)
        let imports = try db.prepare("SELECT imported FROM source_imports WHERE owner = ? AND source = ?")
        var sources: [Source] = []
        while try statement.step() {
            let source = try registry.revision(statement.int(0), owner: owner, db).source
            imports.reset()
            imports.bind(1, owner)
            imports.bind(2, statement.int(1))
            let importedTime = try imports.step() ? imports.int(0) : nil
            sources.append(Source(name: source.name, bundleID: source.bundleID, importedTime: importedTime))
        }
        return sources.sorted { $0.bundleID < $1.bundleID }
    }

    /// Distinct devices of readable rows, of one type or of every stored type.
    func queryDevices(owner: Int64, type: String?, scope: ReadScope) throws(HealthError) -> [Device] {
        let types = if let type { try resolve([type], owner: owner) } else { try storedSampleTypes(owner: owner) }
        guard !types.isEmpty else { return [] }
        let (from, whereSQL, arguments, _) = try filter(owner: owner, types: types, predicate: nil, scope: scope, table: .samples)
        let statement = try db.prepareOnce("SELECT DISTINCT s.device FROM \(from) WHERE \(whereSQL) AND s.device IS NOT NULL")
        statement.bind(all: arguments)
        var devices: [Device] = []
        while try statement.step() { devices.append(try registry.device(statement.int(0), owner: owner, db)) }
        return devices
    }
}
