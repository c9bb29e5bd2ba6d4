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
        /// The last page's devices and sources with their texts, in its table's order: the next
        /// page's are mostly the same in the same order (the first met first, from another start
        /// where samples cycle through them), and comparing a device with the one at its place
        /// costs a fraction of hashing it for the maps above.
        fileprivate var pageDevices = PageTexts<Device>()
        fileprivate var pageSources = PageTexts<SourceRevision>()
        /// The last timestamp's hour and the last microseconds' leading digits, as text; creation
        /// times apart, as they lie far from the samples' own instants.
        fileprivate var instants = ISO8601Writer()
        fileprivate var micros = LeadingDigits()
        fileprivate var creationMicros = LeadingDigits()
    }

    /// Appends the line of `s`.
    public static func writeLine(_ s: Sample, zone: TimeZone?, cache: inout LineCache, to out: inout LineBuffer) {
        let body: PlainBody, unit: [UInt8]?
        switch s.body {
        case .quantity(let q, let count) where s.discreteSeries == nil:
            (body, unit) = (.quantity(q.value, count: count), cached(q.unit, &cache.strings, JSON.string))
        case .category(let value): (body, unit) = (.category(value), nil)
        default:
            return writeTreeLine(sample(s, zone: zone), to: &out)
        }
        let type = cached(s.type, &cache.strings, JSON.string)
        let device = s.device.map { cached($0, &cache.devices, Self.device) }
        let source = s.sourceRevision.map { cached($0, &cache.sources, revision) }
        type.withUnsafeBufferPointer { type in
            withBytes(unit) { unit in
                withBytes(device) { device in
                    withBytes(source) { source in
                        PlainLine(uuid: s.uuid, type: type, start: s.start, end: s.end, creationTime: s.creationTime, body: body,
                                  unit: unit, device: device, source: source)
                            .write(metadata: MetadataText(s.metadata), zone: zone, cache: &cache, to: &out)
                    }
                }
            }
        }
    }

    /// `body` given the bytes of `text` (nil for nil).
    private static func withBytes(_ text: [UInt8]?, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
        guard let text else { return body(nil) }
        text.withUnsafeBufferPointer(body)
    }

    /// The lines of a page in table form (`SampleTable`): each of its devices and sources is written
    /// once, or taken from the cache when an earlier page wrote it.
    public struct TableLines: Sendable {
        private let table: SampleTable
        /// The texts of the table's types, units, devices and sources one after another (a line
        /// points into them: an array of its own for each would be retained and released by every
        /// line that writes it), and where each one's is.
        private let texts: [UInt8]
        private let types: [Range<Int>]
        private let units: [Range<Int>]
        private let devices: [Range<Int>]
        private let sources: [Range<Int>]

        public init(_ table: SampleTable, cache: inout LineCache) {
            self.table = table
            var texts: [UInt8] = []
            func placed(_ text: [UInt8]) -> Range<Int> {
                texts += text
                return texts.count - text.count..<texts.count
            }
            types = table.types.map { placed(cached($0, &cache.strings, JSON.string)) }
            units = table.units.map { placed(cached($0, &cache.strings, JSON.string)) }
            devices = cache.pageDevices.texts(of: table.devices, else: &cache.devices, device).map(placed)
            sources = cache.pageSources.texts(of: table.revisions, else: &cache.sources, revision).map(placed)
            self.texts = texts
        }

        /// Appends the line of `row`, one of the table's rows (a whole sample's through the tree).
        public func writeLine(_ row: SampleTable.Row, zone: TimeZone?, cache: inout LineCache, to out: inout LineBuffer) {
            texts.withUnsafeBufferPointer { texts in
                func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: texts[range]) }
                let body: PlainBody, unit: UnsafeBufferPointer<UInt8>?
                switch row.body {
                case .quantity(let value, let unitIndex, let count): (body, unit) = (.quantity(value, count: count), text(units[Int(unitIndex)]))
                case .category(let value): (body, unit) = (.category(value), nil)
                case .whole(let index):
                    return SampleJSON.writeTreeLine(SampleJSON.sample(table.wholes[index], zone: zone), to: &out)
                }
                PlainLine(uuid: row.uuid, type: text(types[Int(row.type)]), start: row.start, end: row.end,
                          creationTime: row.creationTime, body: body, unit: unit,
                          device: row.device < 0 ? nil : text(devices[Int(row.device)]),
                          source: row.revision < 0 ? nil : text(sources[Int(row.revision)]))
                    .write(metadata: nil, zone: zone, cache: &cache, to: &out)
            }
        }

        /// Appends the lines of the table's rows from the `start`th on, as `writeLine` does, up to
        /// the first for which `writes` is false; returns that row's place (the rows' count when
        /// there is none). A page's lines in one call, not a call from the caller's loop for each.
        public func writeLines(from start: Int, while writes: (SampleTable.Row) -> Bool, zone: TimeZone?,
                               cache: inout LineCache, to out: inout LineBuffer) -> Int {
            var next = start
            while next < table.rows.count, case let row = table.rows[next], writes(row) {
                writeLine(row, zone: zone, cache: &cache, to: &out)
                next += 1
            }
            return next
        }
    }

    /// A page's values (devices or sources) and their texts, kept for the next page.
    fileprivate struct PageTexts<Value: Hashable & Sendable>: Sendable {
        private var values: [Value] = []
        private var texts: [[UInt8]] = []

        /// The texts of `page`'s values: the last page's where the value at the same place (counted
        /// from where the last page holds `page`'s first, round its end) is the same, the others'
        /// from `map` (made by `json` where they are not there); remembered for the next page.
        mutating func texts(of page: [Value], else map: inout [Value: [UInt8]], _ json: (Value) -> JSON) -> [[UInt8]] {
            let start = page.first.flatMap { values.firstIndex(of: $0) } ?? 0
            let texts = page.indices.map { i in
                let last = values.isEmpty ? 0 : (start + i) % values.count
                return last < values.count && values[last] == page[i] ? self.texts[last] : SampleJSON.cached(page[i], &map, json)
            }
            (values, self.texts) = (page, texts)
            return texts
        }
    }

    /// Appends `json`'s line, made through the tree.
    private static func writeTreeLine(_ json: JSON, to out: inout LineBuffer) {
        var bytes = text(of: json)
        bytes.append(UInt8(ascii: "\n"))
        out.append(contentsOf: bytes)
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
        case quantity(Double, count: Int64)
        case category(Int64)
    }

    /// A line's metadata and metadata types as JSON text; none for a sample without metadata (a
    /// table's row), whose line says `{}` for both without a dictionary made for it.
    private struct MetadataText {
        let metadata: [UInt8]
        let types: [UInt8]

        init?(_ metadata: Metadata) {
            guard !metadata.isEmpty else { return nil }
            self.metadata = SampleJSON.text(of: SampleJSON.metadata(metadata))
            types = SampleJSON.text(of: SampleJSON.metadataTypes(metadata))
        }
    }

    /// A quantity or category sample's fields, its type, unit, device and source already as text
    /// (borrowed from their owner for the line's writing).
    private struct PlainLine {
        let uuid: UUID
        let type: UnsafeBufferPointer<UInt8>
        let start: Microseconds
        let end: Microseconds
        let creationTime: Microseconds?
        let body: PlainBody
        /// A quantity's.
        let unit: UnsafeBufferPointer<UInt8>?
        let device: UnsafeBufferPointer<UInt8>?
        let source: UnsafeBufferPointer<UInt8>?

        /// Appends the line: its keys in sorted order, each with the punctuation before it, written
        /// through one pointer into room made once, not piece by piece.
        func write(metadata metadataText: MetadataText?, zone: TimeZone?, cache: inout LineCache, to out: inout LineBuffer) {
            // The keys' text (under 200 bytes), three decimals, two instants as text and decimal, a UUID, a value.
            let room = 256 + 3 * 21 + 2 * (ISO8601Writer.maxCount + 21) + 36 + JSON.numberRoom + type.count + (unit?.count ?? 0)
                + (device?.count ?? 4) + (source?.count ?? 4) + (metadataText.map { $0.metadata.count + $0.types.count } ?? 4)
            out.writing(atMost: room) { first in
                var line = Cursor(at: first)
                let kind: StaticString
                switch body {
                case .quantity(_, let count):
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
                if let metadataText { metadataText.metadata.withUnsafeBufferPointer { line.bytes($0) } } else { line.text("{}") }
                line.text(#","metadata_types":"#)
                if let metadataText { metadataText.types.withUnsafeBufferPointer { line.bytes($0) } } else { line.text("{}") }
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
                if case .quantity(let value, _) = body {
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

        /// Each byte's two upper-case hex digits, as stored in memory (the first digit first).
        private static let upperHexPairs: [UInt16] = (0..<256).map { byte in
            let digits = Array("0123456789ABCDEF".utf8)
            return (UInt16(digits[byte >> 4]) | UInt16(digits[byte & 0xF]) << 8).littleEndian
        }

        mutating func text(_ fragment: StaticString) {
            at.update(from: fragment.utf8Start, count: fragment.utf8CodeUnitCount)
            at += fragment.utf8CodeUnitCount
        }

        /// JSON text made already, or null.
        mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>?) {
            guard let bytes else { return text("null") }
            if let base = bytes.baseAddress { at.update(from: base, count: bytes.count) }
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
            Self.upperHexPairs.withUnsafeBufferPointer { pairs in
                withUnsafeBytes(of: uuid.uuid) { uuid in
                    for i in 0..<16 {
                        if i == 4 || i == 6 || i == 8 || i == 10 {
                            at.pointee = UInt8(ascii: "-")
                            at += 1
                        }
                        UnsafeMutableRawPointer(at).storeBytes(of: pairs[Int(uuid[i])], as: UInt16.self)
                        at += 2
                    }
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
