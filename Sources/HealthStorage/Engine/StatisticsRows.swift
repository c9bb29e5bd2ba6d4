import Foundation
import HealthModel

/// The statistics read: readable quantity rows of one type, each handed to the math as it is read.
extension ReadContext {
    /// Hands every readable sample of `type` matching `predicate` to `sink` as a `StatInput` in its
    /// type's canonical unit, in ascending start order (ties in storage order, a quantity series' points
    /// after the rows starting with them). A quantity series counts as its points, so a series spanning
    /// two buckets splits by them.
    func statisticsSamples<Sink: StatInputSink>(owner: Int64, type: String, predicate: QueryPredicate?, scope: ReadScope,
                                                into sink: inout Sink) throws(HealthError) {
        let resolved = try resolve([type], owner: owner)
        guard !resolved.isEmpty else { return }
        let (from, whereSQL, arguments) = try filter(owner: owner, types: resolved, predicate: predicate, scope: scope, table: .samples)
        let statement = try db.prepareOnce("""
            SELECT s.start_time, s.end_time, s.value, s.revision, s.flags, s.uuid FROM \(from)
            WHERE \(whereSQL) AND s.value IS NOT NULL ORDER BY s.start_time, s.anchor
            """)
        statement.bind(all: arguments)
        var sources = RevisionSources(registry: registry, owner: owner, db: db)
        var series: [(uuid: UUID, source: Source, wasUserEntered: Bool)] = []
        // Rows after the first series row wait for its points: they are handed on merged in start order.
        var held: [StatInput] = []
        while try statement.step() {
            let source = try sources.source(of: statement.int(3))
            let flags = statement.int(4), wasUserEntered = flags & SampleRows.userEntered != 0
            if flags & SampleRows.quantitySeries != 0 {
                series.append((statement.uuid(5), source, wasUserEntered))
                continue
            }
            let sample = StatInput(start: statement.int(0), end: statement.int(1), value: statement.double(2),
                                   sourceBundleID: source.bundleID, sourceName: source.name, wasUserEntered: wasUserEntered)
            if series.isEmpty { sink.add(sample) } else { held.append(sample) }
        }
        guard !series.isEmpty, let canonical = resolved[0].type.canonicalUnit else { return }
        // Points lie inside their series' interval, so none starts before a row already handed on.
        let rows = QuantitySeriesRows(db: db)
        for (uuid, source, wasUserEntered) in series {
            held += try rows.statisticsPoints(owner: owner, uuid: uuid, canonical: canonical, source: source, wasUserEntered: wasUserEntered)
        }
        held.sort { $0.start < $1.start }
        for sample in held { sink.add(sample) }
    }
}

/// Each row's source by its revision id: a year of samples comes from a few revisions, each looked up
/// once, and runs of rows from one revision skip even the dictionary.
private struct RevisionSources {
    let registry: Registry
    let owner: Int64
    let db: Database
    private var known: [Int64: Source] = [:]
    private var last: (revision: Int64, source: Source)?

    init(registry: Registry, owner: Int64, db: Database) {
        self.registry = registry
        self.owner = owner
        self.db = db
    }

    mutating func source(of revision: Int64) throws(HealthError) -> Source {
        if let last, last.revision == revision { return last.source }
        let source: Source
        if let found = known[revision] {
            source = found
        } else {
            source = try registry.revision(revision, owner: owner, db).source
            known[revision] = source
        }
        last = (revision, source)
        return source
    }
}
