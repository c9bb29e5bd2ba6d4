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
    static func widths<C: Collection<UUIDEntry>>(_ entries: C) -> (owner: Int, type: Int, anchor: Int) {
        entries.reduce((1, 1, 1)) { (max($0.0, width($1.owner)), max($0.1, width($1.type)), max($0.2, width($1.anchor))) }
    }

    /// Bytes `value` takes (a negative one all 8: its bit pattern).
    static func width(_ value: Int64) -> Int { value < 0 ? 8 : max(1, (64 - value.leadingZeroBitCount + 7) / 8) }

    static func size(count: Int, _ widths: (owner: Int, type: Int, anchor: Int)) -> Int {
        3 + count * (headBytes + widths.owner + widths.type + widths.anchor)
    }

    static func encode<C: Collection<UUIDEntry>>(_ entries: C) -> Data {
        let widths = widths(entries)
        var data = Data(capacity: size(count: entries.count, widths))
        data.append(contentsOf: [UInt8(widths.owner), UInt8(widths.type), UInt8(widths.anchor)])
        for entry in entries {
            withUnsafeBytes(of: entry.head.bigEndian) { data.append(contentsOf: $0) }
            for (value, width) in [(entry.owner, widths.owner), (entry.type, widths.type), (entry.anchor, widths.anchor)] {
                withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0.prefix(width)) }
            }
        }
        return data
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
        let joined = (owner: max(widths.owner, UUIDRunBlock.width(entry.owner)), type: max(widths.type, UUIDRunBlock.width(entry.type)),
                      anchor: max(widths.anchor, UUIDRunBlock.width(entry.anchor)))
        if let last = pending.last, last.head != entry.head, UUIDRunBlock.size(count: pending.count + 1, joined) > UUIDLevels.runRowBytes {
            try flush()
            widths = (UUIDRunBlock.width(entry.owner), UUIDRunBlock.width(entry.type), UUIDRunBlock.width(entry.anchor))
        } else {
            widths = joined
        }
        pending.append(entry)
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
