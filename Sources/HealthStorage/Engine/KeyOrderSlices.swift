import Foundation
import HealthModel

/// A run of a type's rows consecutive in (start, anchor) order, at most a fixed number of them, with
/// the ranges of the primary key (owner, type, anchor) that hold them all.
struct KeyOrderSlice {
    /// The run's first and last rows' (start, anchor): the run is every row between them, both included.
    var first: (start: Microseconds, anchor: Int64)
    var last: (start: Microseconds, anchor: Int64)
    var count: Int
    /// Ascending, disjoint ranges of anchors holding every row of the run (and some rows of others).
    var anchors: [ClosedRange<Int64>] = []
    /// Rows of the type in those ranges, at most: `count` when they hold no other run's rows.
    var visits = 0
    /// The parts of the type's anchors (`KeyOrderPlan.parts`) holding rows of the run, one bit each.
    fileprivate var parts: [UInt64]

    fileprivate init(first: (start: Microseconds, anchor: Int64), last: (start: Microseconds, anchor: Int64), count: Int, parts: Int) {
        self.first = first
        self.last = last
        self.count = count
        self.parts = [UInt64](repeating: 0, count: (parts + 63) / 64)
    }
}

extension Array where Element == KeyOrderSlice {
    /// The first index from `from` on whose slice satisfies `isPast` (slices ordered so that once it
    /// holds it holds for every later one), or `endIndex`: a binary search.
    fileprivate func firstIndex(from: Int, where isPast: (KeyOrderSlice) -> Bool) -> Int {
        var low = from, high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if isPast(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A statistics read of a whole type cut into slices, and what reading them by key costs.
struct KeyOrderPlan {
    /// How many equal parts of its anchors a type's rows are counted in: the grain of a slice's ranges.
    static let parts = 16_384
    /// What starting one more range of the key costs, in rows passed over: a seek, a reset and a bind.
    static let rangeCost = 16

    var slices: [KeyOrderSlice] = []
    /// Rows that reading each slice's ranges of the key visits (its own and other slices'), at most.
    var visits = 0
    /// Rows handed out of the database to cut the slices: one a part of the anchors, two a slice, one
    /// a probe of a part whose starts span several slices' bounds; not one a row of the type.
    var cutRows = 0

    var rows: Int { slices.reduce(0) { $0 + $1.count } }
    var ranges: Int { slices.reduce(0) { $0 + $1.anchors.count } }

    /// Whether reading the slices' key ranges costs less than seeking every row through
    /// `samples_by_time`. A row of a key range outside its slice costs SQLite ≈ 0.17 µs to pass over,
    /// a range's seek about as much as `rangeCost` of them, while seeking a row through the index
    /// costs ≈ 1.8 µs more than reading it in key order; so up to about ten rows visited per row read
    /// still win. Rows saved in time order, or sources saved one after another each in time order,
    /// give slices whose rows lie in a few runs of anchors; rows saved in no order give every slice
    /// a range a row or nearly the whole type.
    var keyRangesWin: Bool { visits + Self.rangeCost * ranges <= 8 * rows }
}

extension ReadContext {
    /// The owner's rows of `typeID` cut in (start, anchor) order into slices of at most `rows` rows,
    /// each with the ranges of anchors its rows lie in, without stepping every row out of the
    /// database: the type's anchors are counted in `parts` equal parts through the primary key, with
    /// the earliest and latest start of each part's rows; each slice's bounds are one probe through
    /// `samples_by_time` (its `OFFSET` skips the slice's rows inside the engine); a part marks the
    /// one slice its starts can lie in or, when its starts span several slices' bounds, each of
    /// them that a probe finds one of its rows in.
    func keyOrderPlan(owner: Int64, typeID: Int64, rows: Int, parts: Int = KeyOrderPlan.parts) throws(HealthError) -> KeyOrderPlan {
        let extent = try db.prepare("SELECT MIN(anchor), MAX(anchor) FROM samples WHERE owner = ? AND type = ?")
        extent.bind(all: [.int(owner), .int(typeID)])
        defer { extent.reset() }
        guard try extent.step(), let lowest = extent.optionalInt(0), let highest = extent.optionalInt(1) else { return KeyOrderPlan() }
        let width = (highest - lowest) / Int64(parts) + 1
        let used = Int((highest - lowest) / width) + 1
        var plan = KeyOrderPlan()
        // Three short scans of the key a part, summed inside the engine: no sort, and one row out of
        // the database a part instead of one a row.
        let inPart = """
            FROM samples \(db.dialect.byPrimaryKey)
            WHERE owner = ?1 AND type = ?2 AND anchor BETWEEN CAST(?4 AS BIGINT) + k * CAST(?5 AS BIGINT) AND CAST(?4 AS BIGINT) + (k + 1) * CAST(?5 AS BIGINT) - 1
            """
        let counts = try db.prepare("""
            WITH RECURSIVE part(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM part WHERE k < ?3)
            SELECT k, (SELECT COUNT(*) \(inPart)), (SELECT MIN(start_time) \(inPart)), (SELECT MAX(start_time) \(inPart)) FROM part
            """)
        counts.bind(all: [.int(owner), .int(typeID), .int(Int64(used - 1)), .int(lowest), .int(width)])
        defer { counts.reset() }
        var perPart = [Int](repeating: 0, count: used)
        var spans = [(from: Microseconds, to: Microseconds)](repeating: (0, 0), count: used)
        while try counts.step() {
            let part = Int(counts.int(0))
            perPart[part] = Int(counts.int(1))
            if perPart[part] > 0 { spans[part] = (counts.int(2), counts.int(3)) }
            plan.cutRows += 1
        }
        // A slice's last row is `count - 1` rows past its first, and the next slice's first follows it.
        let total = perPart.reduce(0, +)
        let bounds = try db.prepare("""
            SELECT s.start_time, s.anchor FROM samples s \(db.dialect.indexedBy("samples_by_time"))
            WHERE s.owner = ? AND s.type = ? AND (s.start_time, s.anchor) >= (?, ?) ORDER BY s.start_time, s.anchor LIMIT 2 OFFSET ?
            """)
        defer { bounds.reset() }
        func probe(from: (start: Microseconds, anchor: Int64), skipping: Int) throws(HealthError) -> [(start: Microseconds, anchor: Int64)] {
            bounds.reset()
            bounds.bind(all: [.int(owner), .int(typeID), .int(from.start), .int(from.anchor), .int(Int64(skipping))])
            var found: [(start: Microseconds, anchor: Int64)] = []
            while try bounds.step() { found.append((bounds.int(0), bounds.int(1))) }
            plan.cutRows += found.count
            return found
        }
        var next = try probe(from: (.min, .min), skipping: 0).first
        while let first = next, plan.rows < total {
            let count = min(rows, total - plan.rows)
            let found = try probe(from: first, skipping: count - 1)
            guard let last = found.first else { break }
            plan.slices.append(KeyOrderSlice(first: first, last: last, count: count, parts: parts))
            next = found.count > 1 ? found[1] : nil
        }
        let found = try db.prepare("""
            SELECT 1 FROM samples s \(db.dialect.byPrimaryKey)
            WHERE s.owner = ? AND s.type = ? AND s.anchor BETWEEN ? AND ? AND (s.start_time, s.anchor) >= (?, ?) AND (s.start_time, s.anchor) <= (?, ?)
            LIMIT 1
            """)
        defer { found.reset() }
        for part in perPart.indices where perPart[part] > 0 {
            // The slices whose starts overlap the part's: every row of it lies in one of them.
            let candidates = plan.slices.firstIndex(from: 0) { $0.last.start >= spans[part].from }
                ..< plan.slices.firstIndex(from: 0) { $0.first.start > spans[part].to }
            for index in candidates {
                var holds = candidates.count == 1
                if !holds {
                    let slice = plan.slices[index]
                    found.reset()
                    found.bind(all: [.int(owner), .int(typeID), .int(lowest + Int64(part) * width), .int(lowest + Int64(part + 1) * width - 1),
                                     .int(slice.first.start), .int(slice.first.anchor), .int(slice.last.start), .int(slice.last.anchor)])
                    holds = try found.step()
                    plan.cutRows += 1
                }
                if holds { plan.slices[index].parts[part >> 6] |= 1 << UInt64(part & 63) }
            }
        }
        for index in plan.slices.indices {
            // Runs of marked parts, joined across gaps whose rows cost less to pass over than a seek.
            var runs: [(from: Int, to: Int)] = []
            for (word, bits) in plan.slices[index].parts.enumerated() where bits != 0 {
                var rest = bits
                while rest != 0 {
                    let part = word * 64 + rest.trailingZeroBitCount
                    rest &= rest - 1
                    plan.slices[index].visits += perPart[part]
                    if let last = runs.last, case let between = perPart[last.to + 1..<part].reduce(0, +), between <= KeyOrderPlan.rangeCost {
                        plan.slices[index].visits += between
                        runs[runs.count - 1].to = part
                    } else {
                        runs.append((part, part))
                    }
                }
            }
            plan.slices[index].anchors = runs.map { lowest + Int64($0.from) * width...lowest + Int64($0.to + 1) * width - 1 }
            plan.slices[index].parts = []
            plan.visits += plan.slices[index].visits
        }
        return plan
    }
}
