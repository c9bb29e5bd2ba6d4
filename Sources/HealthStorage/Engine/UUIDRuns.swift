import Foundation
import HealthModel

/// One UUID level entry: a UUID's head (its first 8 bytes, read big-endian, so numbers order as the
/// bytes do and as SQLite orders the blob `substr(uuid, 1, 8)`) and its sample's key.
struct UUIDEntry: Comparable {
    let head: UInt64, owner: Int64, type: Int64, anchor: Int64

    static func < (a: UUIDEntry, b: UUIDEntry) -> Bool { (a.head, a.owner, a.type, a.anchor) < (b.head, b.owner, b.type, b.anchor) }

    /// The head of `uuid`.
    static func head(_ uuid: UUID) -> UInt64 {
        withUnsafeBytes(of: uuid.uuid) { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    /// The head stored as a blob (8 bytes; a shorter blob, such as the empty cursor of a merge not yet
    /// begun, is nil).
    static func head(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        bytes.count >= 8 ? UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)) : nil
    }

    static func head(_ blob: Data) -> UInt64? { blob.withUnsafeBytes { head($0) } }

    /// `head` as the blob SQLite keys by.
    static func blob(_ head: UInt64) -> Data { withUnsafeBytes(of: head.bigEndian) { Data($0) } }
}

/// A run's row: entries in key order packed at fixed width, the width of each of owner, type and
/// anchor the fewest little-endian bytes its largest value in the row takes (three bytes of header
/// say which), so a row of one owner's few types and millions of anchors takes 8 + 1 + 1 + 3 bytes an
/// entry. Searched in place by bisection on the head: no entry is decoded but the matching ones.
enum UUIDRunBlock {
    /// Bytes of an entry's head.
    static let headBytes = 8

    /// The widths `entries` need.
    static func widths(_ entries: [UUIDEntry]) -> (owner: Int, type: Int, anchor: Int) {
        var widths = (owner: 1, type: 1, anchor: 1)
        for entry in entries {
            widths = (max(widths.owner, width(entry.owner)), max(widths.type, width(entry.type)), max(widths.anchor, width(entry.anchor)))
        }
        return widths
    }

    /// Bytes `value` takes (a negative one all 8: its bit pattern).
    static func width(_ value: Int64) -> Int { value < 0 ? 8 : max(1, (64 - value.leadingZeroBitCount + 7) / 8) }

    static func size(count: Int, _ widths: (owner: Int, type: Int, anchor: Int)) -> Int {
        3 + count * (headBytes + widths.owner + widths.type + widths.anchor)
    }

    /// Written in place: appending to `Data` field by field went through Foundation's generic path,
    /// 17 % of the writer's CPU in the storage bench's stream.
    static func encode(_ entries: [UUIDEntry]) -> Data {
        let widths = widths(entries)
        var data = Data(count: size(count: entries.count, widths))
        data.withUnsafeMutableBytes { bytes in
            bytes[0] = UInt8(widths.owner)
            bytes[1] = UInt8(widths.type)
            bytes[2] = UInt8(widths.anchor)
            var offset = 3
            for entry in entries {
                bytes.storeBytes(of: entry.head.bigEndian, toByteOffset: offset, as: UInt64.self)
                offset += headBytes
                offset = put(entry.owner, widths.owner, into: bytes, at: offset)
                offset = put(entry.type, widths.type, into: bytes, at: offset)
                offset = put(entry.anchor, widths.anchor, into: bytes, at: offset)
            }
        }
        return data
    }

    /// Stores the low `width` bytes of `value`, little-endian, at `offset`; returns the offset after them.
    private static func put(_ value: Int64, _ width: Int, into bytes: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var rest = UInt64(bitPattern: value)
        for byte in 0..<width {
            bytes[offset + byte] = UInt8(truncatingIfNeeded: rest)
            rest >>= 8
        }
        return offset + width
    }

    /// Every entry of a row.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [UUIDEntry] {
        guard let layout = Layout(bytes) else { return [] }
        return (0..<layout.count).map { layout.entry($0) }
    }

    static func decode(_ data: Data) -> [UUIDEntry] { data.withUnsafeBytes { decode($0) } }

    /// The row's entries of `head` (and `owner`, unless nil), found by bisection.
    static func entries(head: UInt64, owner: Int64?, in bytes: UnsafeRawBufferPointer) -> [UUIDEntry] {
        guard let layout = Layout(bytes) else { return [] }
        var low = 0, high = layout.count
        while low < high {
            let middle = (low + high) / 2
            if layout.head(middle) < head { low = middle + 1 } else { high = middle }
        }
        var found: [UUIDEntry] = []
        while low < layout.count, layout.head(low) == head {
            let entry = layout.entry(low)
            if owner == nil || entry.owner == owner { found.append(entry) }
            low += 1
        }
        return found
    }

    /// Where a row's fields are.
    private struct Layout {
        let bytes: UnsafeRawBufferPointer, owner: Int, type: Int, anchor: Int, stride: Int, count: Int

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 3 else { return nil }
            (owner, type, anchor) = (Int(bytes[0]), Int(bytes[1]), Int(bytes[2]))
            stride = headBytes + owner + type + anchor
            guard (1...8).contains(owner), (1...8).contains(type), (1...8).contains(anchor) else { return nil }
            self.bytes = bytes
            count = (bytes.count - 3) / stride
        }

        func head(_ index: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 3 + index * stride, as: UInt64.self)) }

        func entry(_ index: Int) -> UUIDEntry {
            let base = 3 + index * stride + headBytes
            return UUIDEntry(head: head(index), owner: value(base, owner), type: value(base + owner, type),
                             anchor: value(base + owner + type, anchor))
        }

        private func value(_ offset: Int, _ width: Int) -> Int64 {
            var value: UInt64 = 0
            for byte in 0..<width { value |= UInt64(bytes[offset + byte]) << (8 * byte) }
            return Int64(bitPattern: value)
        }
    }
}

/// Appends entries in key order to a run, a row at a time: a row ends before the entry that would take
/// it past `UUIDLevels.runRowBytes`, but never between two entries of one head, so a head is in one row
/// of a run and the row whose first head is the greatest at or below it is the only one to read.
struct UUIDRunWriter {
    let db: Database
    let run: Int64
    private var pending: [UUIDEntry] = []
    /// The widths `pending` needs.
    private var widths = (owner: 1, type: 1, anchor: 1)
    /// Entries written as rows.
    private(set) var written = 0
    /// Entries appended, written or not.
    var count: Int { written + pending.count }

    init(db: Database, run: Int64) {
        (self.db, self.run) = (db, run)
    }

    mutating func append(_ entry: UUIDEntry) throws(HealthError) {
        if beginsRow(entry) {
            try flush()
            widths = (UUIDRunBlock.width(entry.owner), UUIDRunBlock.width(entry.type), UUIDRunBlock.width(entry.anchor))
        } else {
            widths = joined(entry)
        }
        pending.append(entry)
    }

    /// Whether appending `entry` would write the pending entries as a row first: they are a whole row.
    func beginsRow(_ entry: UUIDEntry) -> Bool {
        guard let last = pending.last, last.head != entry.head else { return false }
        return UUIDRunBlock.size(count: pending.count + 1, joined(entry)) > UUIDLevels.runRowBytes
    }

    /// The widths the pending entries and `entry` need.
    private func joined(_ entry: UUIDEntry) -> (owner: Int, type: Int, anchor: Int) {
        (max(widths.owner, UUIDRunBlock.width(entry.owner)), max(widths.type, UUIDRunBlock.width(entry.type)),
         max(widths.anchor, UUIDRunBlock.width(entry.anchor)))
    }

    /// Writes the entries not yet written as the run's next row.
    mutating func flush() throws(HealthError) {
        guard let first = pending.first else { return }
        let insert = try db.prepare("INSERT INTO \(UUIDLevels.runs) (run, first_head, data) VALUES (?, ?, ?)")
        insert.bind(all: [.int(run), .blob(UUIDEntry.blob(first.head)), .blob(UUIDRunBlock.encode(pending))])
        try insert.run()
        written += pending.count
        pending.removeAll(keepingCapacity: true)
        widths = (1, 1, 1)
    }
}

extension WriteContext {
    /// One slice of the running merge, or of one started when a level holds `runFanout` runs (the lowest
    /// such level, its oldest runs); false when there is none to run. A merge writes its output run in
    /// key order, a slice a transaction, and deletes each input row it has written out; its output's
    /// `cursor` is the last head written. A slice ends at the first row boundary after `share` entries
    /// (so small slices leave no part-filled rows), and at `uuidMergeSliceEntries` entries at most
    /// (between two heads). Until the last slice both the inputs and the output are read (`uuid_keys`
    /// skips an input's entries at or below the cursor), so every entry is found exactly once whichever
    /// slice last committed, and a merge undone with its transaction or cut short by a crash resumes
    /// from the last committed cursor.
    @discardableResult
    func mergeUUIDRunSlice(share: Int = .max) throws(HealthError) -> Bool {
        let directory = UUIDLevels.directory
        var output: (run: Int64, cursor: UInt64?)?
        let running = try db.prepare("SELECT run, cursor FROM \(directory) WHERE cursor IS NOT NULL LIMIT 1")
        if try running.step() { output = (running.int(0), running.blob(1).flatMap(UUIDEntry.head)) }
        running.reset()
        if output == nil {
            let full = try db.prepare("""
                SELECT level FROM \(directory) WHERE merge_into IS NULL GROUP BY level HAVING count(*) >= ? ORDER BY level LIMIT 1
                """)
            full.bind(1, Int64(UUIDLevels.runFanout))
            let level = try full.step() ? full.int(0) : nil
            full.reset()
            guard let level else { return false }
            let run = try UUIDLevels.nextRun(db)
            let start = try db.prepare("INSERT INTO \(directory) (run, level, entries, cursor) VALUES (?, ?, 0, x'')")
            start.bind(all: [.int(run), .int(level + 1)])
            try start.run()
            let inputs = try db.prepare("""
                UPDATE \(directory) SET merge_into = ?1 WHERE run IN
                    (SELECT run FROM \(directory) WHERE level = ?2 AND merge_into IS NULL AND cursor IS NULL ORDER BY run LIMIT ?3)
                """)
            inputs.bind(all: [.int(run), .int(level), .int(Int64(UUIDLevels.runFanout))])
            try inputs.run()
            output = (run, nil)
        }
        guard let output else { return false }
        var merge = try RunMerge(db: db, output: output.run, after: output.cursor)
        var writer = UUIDRunWriter(db: db, run: output.run)
        var last: UInt64?
        while let entry = try merge.peek() {
            if entry.head != last, writer.count >= max(1, uuidMergeSliceEntries) || writer.count >= share && writer.beginsRow(entry) { break }
            try writer.append(entry)
            last = entry.head
            try merge.advance()
        }
        try writer.flush()
        let finished = try merge.peek() == nil
        try merge.deleteConsumedRows()
        let count = try db.prepare("UPDATE \(directory) SET entries = entries + ?1, cursor = ?2 WHERE run = ?3")
        count.bind(all: [.int(Int64(writer.written)), finished ? .null : .blob(UUIDEntry.blob(last ?? 0)), .int(output.run)])
        try count.run()
        if finished {
            let inputs = try db.prepare("DELETE FROM \(directory) WHERE merge_into = ?")
            inputs.bind(1, output.run)
            try inputs.run()
        }
        return true
    }
}

/// The entries of a merge's input runs above its cursor, in key order: each input's rows read one at a
/// time (no statement stays open while the merge writes), the smallest current entry first.
private struct RunMerge {
    private struct Input {
        let run: Int64
        var entries: [UUIDEntry] = []
        var position = 0
        var rowID: Int64?
        var firstHead = Data()
        var exhausted = false
    }

    let db: Database
    private let after: UInt64?
    private var inputs: [Input]
    /// Input rows every entry of which is written out.
    private var consumed: [Int64] = []

    init(db: Database, output: Int64, after: UInt64?) throws(HealthError) {
        self.db = db
        self.after = after
        let runs = try db.prepare("SELECT run FROM \(UUIDLevels.directory) WHERE merge_into = ? ORDER BY run")
        runs.bind(1, output)
        var inputs: [Input] = []
        while try runs.step() { inputs.append(Input(run: runs.int(0))) }
        runs.reset()
        self.inputs = inputs
        for index in inputs.indices { try load(index) }
    }

    /// The smallest entry not yet written, nil when every input is exhausted.
    func peek() throws(HealthError) -> UUIDEntry? {
        smallest().map { inputs[$0].entries[inputs[$0].position] }
    }

    mutating func advance() throws(HealthError) {
        guard let index = smallest() else { return }
        inputs[index].position += 1
        if inputs[index].position == inputs[index].entries.count { try load(index) }
    }

    private func smallest() -> Int? {
        var best: Int?
        for (index, input) in inputs.enumerated() where !input.exhausted {
            if best.map({ input.entries[input.position] < inputs[$0].entries[inputs[$0].position] }) ?? true { best = index }
        }
        return best
    }

    /// Moves input `index` to its next row holding an entry above the cursor (the current one, if any,
    /// is consumed), or marks it exhausted.
    private mutating func load(_ index: Int) throws(HealthError) {
        let next = try db.prepare("SELECT id, first_head, data FROM \(UUIDLevels.runs) WHERE run = ? AND first_head > ? ORDER BY first_head LIMIT 1")
        while true {
            if let id = inputs[index].rowID { consumed.append(id) }
            next.reset()
            next.bind(all: [.int(inputs[index].run), .blob(inputs[index].firstHead)])
            guard try next.step() else {
                next.reset()
                inputs[index].rowID = nil
                inputs[index].exhausted = true
                return
            }
            inputs[index].rowID = next.int(0)
            inputs[index].firstHead = next.blob(1) ?? Data()
            let entries = UUIDRunBlock.decode(next.blob(2) ?? Data())
            next.reset()
            inputs[index].entries = after.map { cursor in entries.filter { $0.head > cursor } } ?? entries
            inputs[index].position = 0
            if !inputs[index].entries.isEmpty { return }
        }
    }

    /// Deletes the rows written out.
    func deleteConsumedRows() throws(HealthError) {
        let delete = try db.prepare("DELETE FROM \(UUIDLevels.runs) WHERE id = ?")
        for id in consumed {
            delete.reset()
            delete.bind(1, id)
            try delete.run()
        }
    }
}
