import Foundation
import HealthModel

/// The points of series samples (route locations, heartbeats), `chunkSize` to a row in the packed form
/// of `SeriesPacking`: a 10,000-location route is ten rows, not ten thousand. Every chunk but a series'
/// last is full, so point i is in chunk i / chunkSize and a batch read seeks straight to it.
struct SeriesChunks {
    static let chunkSize = 1_024
    let db: Database

    /// How many points a series holds and the order key of its last one.
    struct Tail {
        var count: Int
        var lastKey: Int64?
    }

    func tail(owner: Int64, series: UUID) throws(HealthError) -> Tail {
        guard let last = try lastChunk(owner: owner, series: series) else { return Tail(count: 0, lastKey: nil) }
        return Tail(count: Int(last.chunk) * Self.chunkSize + last.points, lastKey: last.lastKey)
    }

    /// Appends points after the series' last one (the caller has checked their order): fills the last
    /// chunk up, then adds full chunks.
    func append<P: SeriesPoint>(owner: Int64, series: UUID, _ points: [P]) throws(HealthError) {
        var rest = points[...]
        var next: Int64 = 0
        if let last = try lastChunk(owner: owner, series: series) {
            next = last.chunk + 1
            if last.points < Self.chunkSize, !rest.isEmpty {
                let filled = try P.unpack(last.data, count: last.points) + rest.prefix(Self.chunkSize - last.points)
                rest = rest.dropFirst(filled.count - last.points)
                let update = try db.prepare("UPDATE series_chunks SET points = ?, last_key = ?, data = ? WHERE owner = ? AND series = ? AND chunk = ?")
                update.bind(all: [.int(Int64(filled.count)), .int(filled[filled.count - 1].orderKey), .blob(Data(P.pack(filled))),
                                  .int(owner), .uuid(series), .int(last.chunk)])
                try update.run()
            }
        }
        let insert = try db.prepare("INSERT INTO series_chunks (owner, series, chunk, points, last_key, data) VALUES (?, ?, ?, ?, ?, ?)")
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(Self.chunkSize))
            rest = rest.dropFirst(chunk.count)
            insert.reset()
            insert.bind(all: [.int(owner), .uuid(series), .int(next), .int(Int64(chunk.count)),
                              .int(chunk[chunk.count - 1].orderKey), .blob(Data(P.pack(chunk)))])
            try insert.run()
            next += 1
        }
    }

    /// Up to `limit` points from point `start` on, in order. Only the chunks holding them are selected:
    /// PostgreSQL hands a statement's whole answer at once, so a page must not ask for the rest.
    func read<P: SeriesPoint>(owner: Int64, series: UUID, from start: Int, limit: Int) throws(HealthError) -> [P] {
        let rows = try db.prepare("""
            SELECT points, data FROM series_chunks WHERE owner = ? AND series = ? AND chunk BETWEEN ? AND ? ORDER BY chunk
            """)
        let lastPoint = limit > Int.max - start ? Int.max : start + max(limit, 1) - 1
        rows.bind(all: [.int(owner), .uuid(series), .int(Int64(start / Self.chunkSize)), .int(Int64(lastPoint / Self.chunkSize))])
        var skip = start % Self.chunkSize
        var points: [P] = []
        while points.count < limit, try rows.step() {
            let chunk = try P.unpack([UInt8](rows.blob(1) ?? Data()), count: Int(rows.int(0)))
            points += chunk.dropFirst(skip).prefix(limit - points.count)
            skip = 0
        }
        rows.reset()
        return points
    }

    /// Removes the series' last point (a quantity series point replaced by one with the same start).
    func removeLast<P: SeriesPoint>(owner: Int64, series: UUID, as: P.Type) throws(HealthError) {
        guard let last = try lastChunk(owner: owner, series: series) else { return }
        let kept = try P.unpack(last.data, count: last.points).dropLast()
        let statement: Statement
        if let newLast = kept.last {
            statement = try db.prepare("UPDATE series_chunks SET points = ?, last_key = ?, data = ? WHERE owner = ? AND series = ? AND chunk = ?")
            statement.bind(all: [.int(Int64(kept.count)), .int(newLast.orderKey), .blob(Data(P.pack(Array(kept)))),
                                 .int(owner), .uuid(series), .int(last.chunk)])
        } else {
            statement = try db.prepare("DELETE FROM series_chunks WHERE owner = ? AND series = ? AND chunk = ?")
            statement.bind(all: [.int(owner), .uuid(series), .int(last.chunk)])
        }
        try statement.run()
    }

    /// Removes every point of a series.
    func delete(owner: Int64, series: UUID) throws(HealthError) {
        let delete = try db.prepare("DELETE FROM series_chunks WHERE owner = ? AND series = ?")
        delete.bind(all: [.int(owner), .uuid(series)])
        try delete.run()
    }

    /// Bytes the packed points of every series take, for the size figures of bench/.
    func packedBytes() throws(HealthError) -> Int64 {
        let sum = try db.prepareOnce("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM series_chunks")
        _ = try sum.step()
        return sum.int(0)
    }

    private func lastChunk(owner: Int64, series: UUID) throws(HealthError) -> (chunk: Int64, points: Int, lastKey: Int64, data: [UInt8])? {
        let row = try db.prepare("SELECT chunk, points, last_key, data FROM series_chunks WHERE owner = ? AND series = ? ORDER BY chunk DESC LIMIT 1")
        row.bind(all: [.int(owner), .uuid(series)])
        defer { row.reset() }
        guard try row.step() else { return nil }
        return (row.int(0), Int(row.int(1)), row.int(2), [UInt8](row.blob(3) ?? Data()))
    }
}
