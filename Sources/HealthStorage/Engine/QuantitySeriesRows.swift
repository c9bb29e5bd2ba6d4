import Foundation
import HealthModel

/// The rows a finished quantity series adds to its sample: the row's flag, and the discrete summary
/// (in the row's unit) read back with the sample.
struct QuantitySeriesRows {
    let db: Database

    func markStored(owner: Int64, _ sample: Sample) throws(HealthError) {
        let flag = try db.prepare("UPDATE samples SET flags = flags | ?1 WHERE \(db.dialect.sampleByUUID(owner: "?2", uuid: "?3"))")
        flag.bind(all: [.int(SampleRows.quantitySeries), .int(owner), .uuid(sample.uuid)])
        try flag.run()
        guard let summary = sample.discreteSeries else { return }
        let insert = try db.prepare("""
            INSERT INTO discrete_series (owner, uuid, minimum, maximum, most_recent, most_recent_start, most_recent_end)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        insert.bind(all: [.int(owner), .uuid(sample.uuid), .double(summary.minimum.value), .double(summary.maximum.value),
                          .double(summary.mostRecent.value), .int(summary.mostRecentStart), .int(summary.mostRecentEnd)])
        try insert.run()
    }

    /// The discrete summary of a flagged row whose quantity is in `unit`; nil for a cumulative series.
    func summary(owner: Int64, uuid: UUID, unit: String) throws(HealthError) -> DiscreteSeriesSummary? {
        let row = try db.prepare("""
            SELECT minimum, maximum, most_recent, most_recent_start, most_recent_end FROM discrete_series WHERE owner = ? AND uuid = ?
            """)
        row.bind(all: [.int(owner), .uuid(uuid)])
        defer { row.reset() }
        guard try row.step() else { return nil }
        return DiscreteSeriesSummary(minimum: Quantity(row.double(0), unit), maximum: Quantity(row.double(1), unit),
                                     mostRecent: Quantity(row.double(2), unit), mostRecentStart: row.int(3), mostRecentEnd: row.int(4))
    }

    /// Drops a deleted series sample's points and summary.
    func delete(owner: Int64, uuid: UUID) throws(HealthError) {
        try SeriesChunks(db: db).delete(owner: owner, series: uuid)
        let delete = try db.prepare("DELETE FROM discrete_series WHERE owner = ? AND uuid = ?")
        delete.bind(all: [.int(owner), .uuid(uuid)])
        try delete.run()
    }

    /// Up to `limit` points of a stored series from point `start` on, as statistics take them: in the
    /// type's `canonical` unit.
    func statisticsPoints(owner: Int64, uuid: UUID, from start: Int, limit: Int, canonical: String, source: Source,
                          wasUserEntered: Bool) throws(HealthError) -> [StatInput] {
        let points: [QuantitySeriesPoint] = try SeriesChunks(db: db).read(owner: owner, series: uuid, from: start, limit: limit)
        var result: [StatInput] = []
        result.reserveCapacity(points.count)
        for point in points {
            let value = point.quantity.unit == canonical ? point.quantity.value : try point.quantity.value(in: canonical)
            result.append(StatInput(start: point.start, end: point.end, value: value, sourceBundleID: source.bundleID,
                                    sourceName: source.name, wasUserEntered: wasUserEntered))
        }
        return result
    }
}

/// Quantity series' points merged into a statistics read's rows in start order (a row before the
/// points starting with it, points of series met earlier before those of later ones), read a page of
/// at most `pagePoints` at a time: only the series whose points are still to come are held, each by
/// one page, however long the series and however many rows follow them.
struct SeriesPointMerge {
    let owner: Int64
    let canonical: String
    let rows: QuantitySeriesRows
    let pagePoints: Int
    /// The most points held at once (pages read and not yet handed on).
    private(set) var mostHeld = 0

    private struct Open {
        let uuid: UUID
        let source: Source
        let wasUserEntered: Bool
        var read: Int
        var page: [StatInput]
        var next: Int
    }
    /// In the order their rows were met, which breaks ties between points starting together.
    private var open: [Open] = []
    private var held = 0

    init(owner: Int64, canonical: String, db: Database, pagePoints: Int) {
        self.owner = owner
        self.canonical = canonical
        rows = QuantitySeriesRows(db: db)
        self.pagePoints = pagePoints
    }

    var isEmpty: Bool { open.isEmpty }

    /// A series row met in the read: its points wait to be merged in. Its points start no earlier
    /// than the row, so none starts before a row already handed on.
    mutating func add(uuid: UUID, source: Source, wasUserEntered: Bool) throws(HealthError) {
        var series = Open(uuid: uuid, source: source, wasUserEntered: wasUserEntered, read: 0, page: [], next: 0)
        try turnPage(&series)
        if !series.page.isEmpty { open.append(series) }
    }

    /// Hands `sink` every waiting point starting before `bound` (all of them when nil), in start order.
    mutating func hand<Sink: StatInputSink>(before bound: Microseconds?, to sink: inout Sink) throws(HealthError) {
        while !open.isEmpty {
            var first = 0
            for index in open.indices.dropFirst() where open[index].page[open[index].next].start < open[first].page[open[first].next].start {
                first = index
            }
            let point = open[first].page[open[first].next]
            if let bound, point.start >= bound { return }
            sink.add(point)
            held -= 1
            open[first].next += 1
            guard open[first].next == open[first].page.count else { continue }
            var series = open[first]
            try turnPage(&series)
            if series.page.isEmpty { open.remove(at: first) } else { open[first] = series }
        }
    }

    /// Replaces the series' page by its next one (empty when it has no points left).
    private mutating func turnPage(_ series: inout Open) throws(HealthError) {
        series.page = try rows.statisticsPoints(owner: owner, uuid: series.uuid, from: series.read, limit: pagePoints, canonical: canonical,
                                                source: series.source, wasUserEntered: series.wasUserEntered)
        series.read += series.page.count
        series.next = 0
        held += series.page.count
        mostHeld = max(mostHeld, held)
    }
}
