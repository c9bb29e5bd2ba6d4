import Foundation

// JSON lines written straight into one byte buffer, byte for byte `sample(_:zone:).text(pretty: false)`
// and a newline, without building the tree for plain quantity and category samples: an export
// writes a million of them. Other kinds (and discrete series samples) go through the tree.
extension SampleJSON {
    /// Sources and devices already written, as their bytes: an export repeats a few of each.
    public struct LineCache: Sendable {
        public init() {}
        fileprivate var sources: [SourceRevision: [UInt8]] = [:]
        fileprivate var devices: [Device: [UInt8]] = [:]
        /// Types and units as JSON strings.
        fileprivate var strings: [String: [UInt8]] = [:]
        /// The last timestamp's hour and the last microseconds' leading digits, as text; creation
        /// times apart, as they lie far from the samples' own instants.
        fileprivate var instants = ISO8601Writer()
        fileprivate var micros = LeadingDigits()
        fileprivate var creationMicros = LeadingDigits()
    }

    /// Appends the line of `s`.
    public static func writeLine(_ s: Sample, zone: TimeZone?, cache: inout LineCache, to out: inout [UInt8]) {
        let body: PlainBody
        switch s.body {
        case .quantity(let q, let count) where s.discreteSeries == nil:
            body = .quantity(q.value, unit: cached(q.unit, &cache.strings, JSON.string), count: count)
        case .category(let value): body = .category(value)
        default:
            sample(s, zone: zone).write(to: &out)
            return out.append(UInt8(ascii: "\n"))
        }
        let line = PlainLine(uuid: s.uuid, type: cached(s.type, &cache.strings, JSON.string), start: s.start, end: s.end,
                             creationTime: s.creationTime, body: body,
                             device: s.device.map { cached($0, &cache.devices, device) },
                             source: s.sourceRevision.map { cached($0, &cache.sources, revision) })
        line.write(metadata: s.metadata, zone: zone, cache: &cache, to: &out)
    }

    /// The lines of a page in table form (`SampleTable`): each of its devices and sources is written
    /// once, or taken from the cache when an earlier page wrote it.
    public struct TableLines: Sendable {
        private let table: SampleTable
        private let types: [[UInt8]]
        private let units: [[UInt8]]
        private let devices: [[UInt8]]
        private let sources: [[UInt8]]

        public init(_ table: SampleTable, cache: inout LineCache) {
            self.table = table
            types = table.types.map { cached($0, &cache.strings, JSON.string) }
            units = table.units.map { cached($0, &cache.strings, JSON.string) }
            devices = table.devices.map { cached($0, &cache.devices, device) }
            sources = table.revisions.map { cached($0, &cache.sources, revision) }
        }

        /// Appends the line of `row`, one of the table's rows (a whole sample's through the tree).
        public func writeLine(_ row: SampleTable.Row, zone: TimeZone?, cache: inout LineCache, to out: inout [UInt8]) {
            let body: PlainBody
            switch row.body {
            case .quantity(let value, let unit, let count): body = .quantity(value, unit: units[Int(unit)], count: count)
            case .category(let value): body = .category(value)
            case .whole(let index):
                SampleJSON.sample(table.wholes[index], zone: zone).write(to: &out)
                return out.append(UInt8(ascii: "\n"))
            }
            let line = PlainLine(uuid: row.uuid, type: types[Int(row.type)], start: row.start, end: row.end,
                                 creationTime: row.creationTime, body: body,
                                 device: row.device < 0 ? nil : devices[Int(row.device)],
                                 source: row.revision < 0 ? nil : sources[Int(row.revision)])
            line.write(metadata: [:], zone: zone, cache: &cache, to: &out)
        }
    }

    private static func text(of json: JSON) -> [UInt8] {
        var bytes: [UInt8] = []
        json.write(to: &bytes)
        return bytes
    }

    private static func cached<Key: Hashable>(_ value: Key, _ map: inout [Key: [UInt8]], _ json: (Key) -> JSON) -> [UInt8] {
        if let bytes = map[value] { return bytes }
        let bytes = text(of: json(value))
        map[value] = bytes
        return bytes
    }

    private enum PlainBody {
        case quantity(Double, unit: [UInt8], count: Int64)
        case category(Int64)
    }

    /// A quantity or category sample's fields, its type, unit, device and source already as text.
    /// Not copyable, so that writing borrows it where a copy would retain each text.
    private struct PlainLine: ~Copyable {
        let uuid: UUID
        let type: [UInt8]
        let start: Microseconds
        let end: Microseconds
        let creationTime: Microseconds?
        let body: PlainBody
        let device: [UInt8]?
        let source: [UInt8]?

        /// Appends the line: its keys in sorted order, each with the punctuation before it, written
        /// through one pointer into room made once, not piece by piece.
        func write(metadata: Metadata, zone: TimeZone?, cache: inout LineCache, to out: inout [UInt8]) {
            let metadataText = metadata.isEmpty ? nil : (SampleJSON.text(of: SampleJSON.metadata(metadata)),
                                                          SampleJSON.text(of: SampleJSON.metadataTypes(metadata)))
            var unit: [UInt8]?
            if case .quantity(_, let u, _) = body { unit = u }
            // The keys' text (under 200 bytes), three decimals, two instants as text and decimal, a UUID, a value.
            let room = 256 + 3 * 21 + 2 * (ISO8601Writer.maxCount + 21) + 36 + JSON.numberRoom + type.count + (unit?.count ?? 0)
                + (device?.count ?? 4) + (source?.count ?? 4) + (metadataText.map { $0.0.count + $0.1.count } ?? 4)
            out.appendWriting(atMost: room) { first in
                var line = Cursor(at: first)
                let kind: StaticString
                switch body {
                case .quantity(_, _, let count):
                    kind = "quantity"
                    line.text(#"{"count":"#)
                    line.decimal(count)
                case .category(let value):
                    kind = "category"
                    line.text(#"{"category_value":"#)
                    line.decimal(value)
                }
                line.text(#","creation_micros":"#)
                if let creationTime { line.at += cache.creationMicros.write(creationTime, to: line.at) } else { line.text("null") }
                line.text(#","device":"#)
                line.bytes(device)
                let endText = line.instant(#","end":""#, #"","end_micros":"#, end, zone: zone, cache: &cache)
                line.text(#","kind":""#)
                line.text(kind)
                line.text(#"","metadata":"#)
                if let metadataText { line.bytes(metadataText.0) } else { line.text("{}") }
                line.text(#","metadata_types":"#)
                if let metadataText { line.bytes(metadataText.1) } else { line.text("{}") }
                line.text(#","source":"#)
                line.bytes(source)
                // An instant sample's start is its end: their text is made once.
                line.instant(#","start":""#, #"","start_micros":"#, start, zone: zone, cache: &cache, as: start == end ? endText : nil)
                line.text(#","type":"#)
                line.bytes(type)
                if let unit {
                    line.text(#","unit":"#)
                    line.bytes(unit)
                }
                line.text(#","uuid":""#)
                line.uuid(uuid)
                if case .quantity(let value, _, _) = body {
                    line.text(#"","value":"#)
                    line.at += JSON.write(number: value, to: line.at)
                    line.text("}\n")
                } else {
                    line.text("\"}\n")
                }
                return line.at - first
            }
        }
    }

    /// An instant's two values as written in a line, its text and its microseconds.
    private struct InstantText {
        let text: UnsafeBufferPointer<UInt8>
        let micros: UnsafeBufferPointer<UInt8>
    }

    /// Where a line's next piece goes, in the room made for the line: a value with inlined steps,
    /// where local functions sharing a captured pointer had their accesses checked at run time.
    private struct Cursor {
        var at: UnsafeMutablePointer<UInt8>

        private static let upperHexDigits: StaticString = "0123456789ABCDEF"

        mutating func text(_ fragment: StaticString) {
            at.update(from: fragment.utf8Start, count: fragment.utf8CodeUnitCount)
            at += fragment.utf8CodeUnitCount
        }

        /// JSON text made already, or null.
        mutating func bytes(_ bytes: [UInt8]?) {
            guard let bytes else { return text("null") }
            bytes.withUnsafeBufferPointer { at.update(from: $0.baseAddress!, count: $0.count) }
            at += bytes.count
        }

        mutating func decimal(_ value: Int64) {
            at += UnsafeMutableBufferPointer(start: at, count: 21).writeDecimal(value, width: 1, at: 0)
        }

        /// An instant as its two adjacent keys: `key` holds the text, `microsKey` the microseconds;
        /// their values copied from `written` when given (the same instant's, written before), and
        /// returned.
        @discardableResult
        mutating func instant(_ key: StaticString, _ microsKey: StaticString, _ micros: Microseconds, zone: TimeZone?,
                              cache: inout LineCache, as written: InstantText? = nil) -> InstantText {
            text(key)
            let textStart = at
            if let written { copy(written.text) } else { at += cache.instants.write(micros, in: zone, to: at) }
            let instantText = UnsafeBufferPointer(start: textStart, count: at - textStart)
            text(microsKey)
            let microsStart = at
            if let written { copy(written.micros) } else { at += cache.micros.write(micros, to: at) }
            return InstantText(text: instantText, micros: UnsafeBufferPointer(start: microsStart, count: at - microsStart))
        }

        private mutating func copy(_ written: UnsafeBufferPointer<UInt8>) {
            at.update(from: written.baseAddress!, count: written.count)
            at += written.count
        }

        /// `uuidString`'s form (upper-case, 8-4-4-4-12) without its formatted print.
        mutating func uuid(_ uuid: UUID) {
            let digits = Self.upperHexDigits.utf8Start
            withUnsafeBytes(of: uuid.uuid) { uuid in
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        at.pointee = UInt8(ascii: "-")
                        at += 1
                    }
                    at[0] = digits[Int(uuid[i] >> 4)]
                    at[1] = digits[Int(uuid[i] & 0xF)]
                    at += 2
                }
            }
        }
    }

    /// Decimal microseconds written with the text of their leading digits (all but the last eight)
    /// kept from the last value: consecutive instants of an export mostly share them.
    fileprivate struct LeadingDigits: Sendable {
        /// `writeEightDigits`'s.
        private static let tailDigits = 8
        private static let tailScale: Int64 = 100_000_000
        private var leading: Int64 = -1
        /// Their text (at most 11 digits), held without an allocation.
        private var text: (UInt64, UInt64) = (0, 0)
        private var count = 0

        /// Writes `value` as `appendDecimal` does at `out` (room for 21 bytes) and returns its length.
        mutating func write(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
            guard value >= Self.tailScale else {
                return UnsafeMutableBufferPointer(start: out, count: 21).writeDecimal(value, width: 1, at: 0)
            }
            let leading = value / Self.tailScale
            if leading != self.leading {
                self.leading = leading
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
                    count = buffer.writeDecimal(leading, width: 1, at: 0)
                    withUnsafeMutableBytes(of: &text) { $0.copyMemory(from: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count)) }
                }
            }
            // All 16 bytes, whatever the count: a store of known size, not a call; the tail's digits
            // come after the count's.
            UnsafeMutableRawPointer(out).storeBytes(of: text, as: (UInt64, UInt64).self)
            (out + count).writeEightDigits(UInt64(value % Self.tailScale))
            return count + Self.tailDigits
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends what `write` writes through a pointer into room for `room` bytes, returning how many
    /// it wrote: one capacity check for many small pieces. The room is a scratch buffer (on the stack
    /// for a line's size), copied from once written: making the room in the array itself would set
    /// every byte of it first.
    /// Inlined into the line's writer, a line's one caller.
    @inline(__always)
    fileprivate mutating func appendWriting(atMost room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { scratch in
            let written = write(scratch.baseAddress!)
            precondition(written <= room, "a line of \(written) bytes in room for \(room)")
            append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
        }
    }

}
