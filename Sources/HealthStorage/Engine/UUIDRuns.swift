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
