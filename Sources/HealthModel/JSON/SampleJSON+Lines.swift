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
        line.write(metadata: s.metadata, zone: zone, to: &out)
    }

    /// The lines of a page in table form (`SampleTable`): each of its devices and sources is written once.
    public struct TableLines: Sendable {
        private let table: SampleTable
        private let types: [[UInt8]]
        private let units: [[UInt8]]
        private let devices: [[UInt8]]
        private let sources: [[UInt8]]

        public init(_ table: SampleTable) {
            self.table = table
            types = table.types.map { SampleJSON.text(of: .string($0)) }
            units = table.units.map { SampleJSON.text(of: .string($0)) }
            devices = table.devices.map { SampleJSON.text(of: SampleJSON.device($0)) }
            sources = table.revisions.map { SampleJSON.text(of: SampleJSON.revision($0)) }
        }

        /// Appends the line of `row`, one of the table's rows (a whole sample's through the tree).
        public func writeLine(_ row: SampleTable.Row, zone: TimeZone?, to out: inout [UInt8]) {
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
            line.write(metadata: [:], zone: zone, to: &out)
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
    private struct PlainLine {
        let uuid: UUID
        let type: [UInt8]
        let start: Microseconds
        let end: Microseconds
        let creationTime: Microseconds?
        let body: PlainBody
        let device: [UInt8]?
        let source: [UInt8]?

        private static let upperHexDigits: StaticString = "0123456789ABCDEF"

        /// Appends the line: its keys in sorted order, each with the punctuation before it.
        func write(metadata: Metadata, zone: TimeZone?, to out: inout [UInt8]) {
            func text(_ fragment: StaticString) {
                out.append(contentsOf: UnsafeBufferPointer(start: fragment.utf8Start, count: fragment.utf8CodeUnitCount))
            }
            func optional(_ bytes: [UInt8]?) {
                if let bytes { out.append(contentsOf: bytes) } else { text("null") }
            }
            /// An instant as its two adjacent keys: `key` holds the text, `microsKey` the microseconds.
            func instant(_ key: StaticString, _ microsKey: StaticString, _ micros: Microseconds) {
                text(key)
                Time.appendISO8601(micros, in: zone, to: &out)
                text(microsKey)
                out.appendDecimal(micros)
            }
            let kind: StaticString
            switch body {
            case .quantity(_, _, let count):
                kind = "quantity"
                text(#"{"count":"#)
                out.appendDecimal(count)
            case .category(let value):
                kind = "category"
                text(#"{"category_value":"#)
                out.appendDecimal(value)
            }
            text(#","creation_micros":"#)
            if let creationTime { out.appendDecimal(creationTime) } else { text("null") }
            text(#","device":"#)
            optional(device)
            instant(#","end":""#, #"","end_micros":"#, end)
            text(#","kind":""#)
            text(kind)
            text(#"","metadata":"#)
            if metadata.isEmpty { text("{}") } else { SampleJSON.metadata(metadata).write(to: &out) }
            text(#","metadata_types":"#)
            if metadata.isEmpty { text("{}") } else { SampleJSON.metadataTypes(metadata).write(to: &out) }
            text(#","source":"#)
            optional(source)
            instant(#","start":""#, #"","start_micros":"#, start)
            text(#","type":"#)
            out.append(contentsOf: type)
            if case .quantity(_, let unit, _) = body {
                text(#","unit":"#)
                out.append(contentsOf: unit)
            }
            text(#","uuid":""#)
            // `uuidString`'s form (upper-case, 8-4-4-4-12) without its formatted print, built on the
            // stack and appended at once.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { hex in
                let digits = Self.upperHexDigits.utf8Start
                withUnsafeBytes(of: uuid.uuid) { bytes in
                    var at = 0
                    for i in 0..<16 {
                        if i == 4 || i == 6 || i == 8 || i == 10 {
                            hex[at] = UInt8(ascii: "-")
                            at += 1
                        }
                        hex[at] = digits[Int(bytes[i] >> 4)]
                        hex[at + 1] = digits[Int(bytes[i] & 0xF)]
                        at += 2
                    }
                }
                out.append(contentsOf: UnsafeBufferPointer(hex))
            }
            if case .quantity(let value, _, _) = body {
                text(#"","value":"#)
                JSON.double(value).write(to: &out)
                text("}\n")
            } else {
                text("\"}\n")
            }
        }
    }
}
