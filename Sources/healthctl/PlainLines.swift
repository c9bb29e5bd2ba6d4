import Foundation
import HealthModel

/// Reads an export's plain lines (a quantity or a category, as `SampleJSON.TableLines` writes them)
/// straight from their bytes into the sample the JSON tree gives (`SampleJSON.decode`): the tree's
/// dictionaries, hashed keys and strings cost an import more than the rest of a line's trip to the
/// store. It takes only what it is sure of: any other line, or anything unexpected in one (another
/// kind, a key it does not know, metadata, an escape, a value of another type, bad JSON) gives nil,
/// and the line is read through the tree, which names the problem.
struct PlainLines {
    /// Types, units, devices and sources read, by their text: an export writes a type's samples
    /// together, mostly from a few devices and one app, so most lines repeat them.
    private var type = Remembered<String>()
    private var unit = Remembered<String>()
    private var device = Remembered<Device>()
    private var source = Remembered<SourceRevision>()
    private static func text(_ text: UnsafeBufferPointer<UInt8>) -> String? { String(decoding: text, as: UTF8.self) }

    /// How a line's sample is built: as the line gives it, or as an import saves it (`SampleJSON.unsaved`:
    /// no creation time, the source only when kept), which spares the import a copy of each sample.
    enum Form {
        case asRead
        case unsaved(keepingSource: Bool)
    }

    private let form: Form

    init(_ form: Form = .asRead) {
        self.form = form
    }

    /// The sample of `line`, nil when the line is not one this reader takes.
    mutating func sample(_ line: String) -> Sample? {
        var line = line
        return line.withUTF8 { sample($0) }
    }

    /// The sample of the line `bytes`, nil when the line is not one this reader takes.
    mutating func sample(_ bytes: UnsafeBufferPointer<UInt8>) -> Sample? {
        var scanner = LineScanner(bytes: bytes)
        return sample(&scanner)
    }

    private enum Kind { case quantity, category }

    private mutating func sample(_ s: inout LineScanner) -> Sample? {
        var kind: Kind?
        var uuid: UUID?
        var type: String?, unit: String?
        var count: Int64?, categoryValue: Int64?, value: Double?
        var start: Int64?, end: Int64?, creation: Int64??
        var device: Device??, source: SourceRevision??
        var metadataSeen = false
        guard s.take(UInt8(ascii: "{")) else { return nil }
        if s.take(UInt8(ascii: "}")) { return nil }
        repeat {
            guard let key = s.string(), s.take(UInt8(ascii: ":")) else { return nil }
            // A key given twice counts as its last value, as in the tree's dictionary.
            switch Key(key) {
            case .count: guard let v = s.integer() else { return nil }; count = v
            case .categoryValue: guard let v = s.integer() else { return nil }; categoryValue = v
            case .value: guard let v = s.number() else { return nil }; value = v
            case .creationMicros:
                if s.null() { creation = .some(nil) } else { guard let v = s.integer() else { return nil }; creation = v }
            case .startMicros: guard let v = s.integer() else { return nil }; start = v
            case .endMicros: guard let v = s.integer() else { return nil }; end = v
            case .start, .end: guard s.string() != nil else { return nil }
            case .kind:
                guard let text = s.string() else { return nil }
                if LineScanner.equal(text, "quantity") { kind = .quantity } else if LineScanner.equal(text, "category") { kind = .category } else { return nil }
            case .type: guard let text = s.string() else { return nil }; type = self.type.value(text, Self.text)
            case .unit: guard let text = s.string() else { return nil }; unit = self.unit.value(text, Self.text)
            case .uuid: guard let text = s.string(), let v = LineScanner.uuid(text) else { return nil }; uuid = v
            case .metadata:
                // Metadata is read through the tree; only an empty object (what plain samples mostly carry) here.
                guard s.emptyObject() else { return nil }
                metadataSeen = true
            case .metadataTypes: guard s.emptyObject() else { return nil }
            case .device:
                if s.null() { device = .some(nil) } else { guard let v = self.device.object(&s, Self.device) else { return nil }; device = v }
            case .source:
                if s.null() { source = .some(nil) } else { guard let v = self.source.object(&s, Self.revision) else { return nil }; source = v }
            case nil: return nil
            }
        } while s.take(UInt8(ascii: ","))
        guard s.take(UInt8(ascii: "}")), s.atEnd(), metadataSeen, let kind, let uuid, let type, let start, let end else { return nil }
        let body: SampleBody
        switch kind {
        case .quantity:
            guard let value, let unit, let count else { return nil }
            body = .quantity(Quantity(value, unit), count: count)
        case .category:
            guard let categoryValue else { return nil }
            body = .category(categoryValue)
        }
        // Consumed, not copied: a device or source copied is a retain of each of its strings.
        let created: Int64? = if case .unsaved = form { nil } else { creation ?? nil }
        let revision: SourceRevision? = if case .unsaved(keepingSource: false) = form { nil } else { (consume source) ?? nil }
        return Sample(uuid: uuid, type: type, start: start, end: end, device: (consume device) ?? nil, sourceRevision: revision,
                      creationTime: created, body: body)
    }

    /// The keys of a plain line.
    private enum Key {
        case count, categoryValue, value, creationMicros, startMicros, endMicros, start, end, kind, type, unit, uuid
        case metadata, metadataTypes, device, source

        init?(_ text: UnsafeBufferPointer<UInt8>) {
            func named(_ word: StaticString) -> Bool { LineScanner.equal(text, word) }
            let key: Key? = switch text.count {
            case 3: named("end") ? .end : nil
            case 4: named("kind") ? .kind : named("type") ? .type : named("unit") ? .unit : named("uuid") ? .uuid : nil
            case 5: named("count") ? .count : named("value") ? .value : named("start") ? .start : nil
            case 6: named("device") ? .device : named("source") ? .source : nil
            case 8: named("metadata") ? .metadata : nil
            case 10: named("end_micros") ? .endMicros : nil
            case 12: named("start_micros") ? .startMicros : nil
            case 14: named("category_value") ? .categoryValue : named("metadata_types") ? .metadataTypes : nil
            case 15: named("creation_micros") ? .creationMicros : nil
            default: nil
            }
            guard let key else { return nil }
            self = key
        }
    }

    /// A device object whose every field is a string or null, as `SampleJSON.decode` reads it.
    private static func device(_ text: UnsafeBufferPointer<UInt8>) -> Device? {
        guard let f = strings(text, deviceKeys) else { return nil }
        return Device(name: f[0], manufacturer: f[1], model: f[2], hardwareVersion: f[3], firmwareVersion: f[4], softwareVersion: f[5],
                      localIdentifier: f[6], udiDeviceIdentifier: f[7])
    }

    private static let deviceKeys: [StaticString] = ["name", "manufacturer", "model", "hardware_version", "firmware_version",
                                                     "software_version", "local_identifier", "udi_device_identifier"]

    /// A source object of strings (name, bundle_id and os_version required) and nulls, checked as
    /// `SampleJSON.decode` checks it.
    private static func revision(_ text: UnsafeBufferPointer<UInt8>) -> SourceRevision? {
        guard let f = strings(text, sourceKeys), let name = f[0], let bundleID = f[1], let os = f[4],
              let (major, minor, patch) = try? SampleJSON.osVersion(os, path: "source") else { return nil }
        return SourceRevision(source: Source(name: name, bundleID: bundleID), version: f[2], productType: f[3],
                              osMajor: major, osMinor: minor, osPatch: patch)
    }

    private static let sourceKeys: [StaticString] = ["name", "bundle_id", "version", "product_type", "os_version"]

    /// The fields of the object `text`, by their place in `keys`: each a string or null (or absent: nil).
    private static func strings(_ text: UnsafeBufferPointer<UInt8>, _ keys: [StaticString]) -> [String?]? {
        var fields = [String?](repeating: nil, count: keys.count)
        var s = LineScanner(bytes: text)
        guard s.fields({ key, s in
            guard let index = keys.firstIndex(where: { LineScanner.equal(key, $0) }), let value = s.nullOrString() else { return false }
            fields[index] = value
            return true
        }), s.atEnd() else { return nil }
        return fields
    }
}

/// Values read from a line's text, kept by that text (up to `capacity` texts, then forgotten
/// together), so the same text next time gives its value again unread.
private struct Remembered<Value> {
    private static var capacity: Int { 4096 }
    private typealias Entry = (text: [UInt8], value: Value)
    /// By the text's hash: the text and its value.
    private var entries: [UInt64: Entry] = [:]
    /// The entry found last: a line mostly repeats the line before's type, unit, device and source,
    /// which is then compared rather than hashed (hashing a device object byte by byte took a tenth
    /// of an import's reading). Text and value apart, so the comparison copies neither (a copy of a
    /// device is a retain of each of its strings).
    private var lastText: [UInt8] = []
    private var lastValue: Value?

    /// The value of the string `text`, made by `make` unless it was made before.
    mutating func value(_ text: UnsafeBufferPointer<UInt8>, _ make: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
        if lastValue != nil, LineScanner.equal(text, lastText) { return lastValue }
        return value(text, hash: LineScanner.hash(text), make)
    }

    /// The value of the object `s` reads next (`LineScanner.object`), made by `make` unless it was made before.
    mutating func object(_ s: inout LineScanner, _ make: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
        // The same bytes read as an object end where the last one did.
        if lastValue != nil, s.take(lastText) { return lastValue }
        guard let (text, hash) = s.object() else { return nil }
        return value(text, hash: hash, make)
    }

    private mutating func value(_ text: UnsafeBufferPointer<UInt8>, hash: UInt64,
                                _ make: (UnsafeBufferPointer<UInt8>) -> Value?) -> Value? {
        if let entry = entries[hash], LineScanner.equal(text, entry.text) {
            (lastText, lastValue) = entry
            return entry.value
        }
        guard let value = make(text) else { return nil }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        let entry = (Array(text), value)
        entries[hash] = entry
        (lastText, lastValue) = entry
        return value
    }
}

/// The byte-level reading of a line, with the JSON tree parser's rules (`JSON.parse`) for what it takes.
private struct LineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var at = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Steps over whitespace (the four bytes JSON allows).
    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
    }

    /// Takes `byte` after any whitespace.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { return false }
        at += 1
        return true
    }

    /// Takes the bytes `text` after any whitespace when they come next.
    mutating func take(_ text: [UInt8]) -> Bool {
        skipSpace()
        guard bytes.count - at >= text.count, LineScanner.equal(UnsafeBufferPointer(rebasing: bytes[at..<at + text.count]), text) else {
            return false
        }
        at += text.count
        return true
    }

    /// The text of an object holding no object, array or escape (whose end is its first `}` outside
    /// a string) and its hash, nil for anything else.
    mutating func object() -> (text: UnsafeBufferPointer<UInt8>, hash: UInt64)? {
        guard take(UInt8(ascii: "{")) else { return nil }
        let start = at - 1
        var hash = Self.hash(Self.hashBasis, UInt8(ascii: "{"))
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            hash = Self.hash(hash, byte)
            switch byte {
            case UInt8(ascii: "\""):
                while at < bytes.count, bytes[at] != UInt8(ascii: "\"") {
                    guard bytes[at] != UInt8(ascii: "\\") else { return nil }
                    hash = Self.hash(hash, bytes[at])
                    at += 1
                }
                guard at < bytes.count else { return nil }
                hash = Self.hash(hash, bytes[at])
                at += 1
            case UInt8(ascii: "}"): return (UnsafeBufferPointer(rebasing: bytes[start..<at]), hash)
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\\"): return nil
            default: break
            }
        }
        return nil
    }

    /// FNV-1a (64 bits) of `text`, as `object` gives it: two texts of one import sharing a hash only cost a read.
    static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        text.reduce(hashBasis, hash)
    }

    private static let hashBasis: UInt64 = 0xCBF2_9CE4_8422_2325

    private static func hash(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x100_0000_01B3
    }

    /// A string's text, `.some(nil)` for null, nil for anything else.
    mutating func nullOrString() -> String?? {
        if null() { return .some(nil) }
        return string().map { String(decoding: $0, as: UTF8.self) }
    }

    mutating func emptyObject() -> Bool {
        take(UInt8(ascii: "{")) && take(UInt8(ascii: "}"))
    }

    mutating func atEnd() -> Bool {
        skipSpace()
        return at == bytes.count
    }

    mutating func null() -> Bool {
        skipSpace()
        guard bytes.count - at >= 4, bytes[at] == UInt8(ascii: "n"), bytes[at + 1] == UInt8(ascii: "u"),
              bytes[at + 2] == UInt8(ascii: "l"), bytes[at + 3] == UInt8(ascii: "l") else { return false }
        at += 4
        return true
    }

    /// The bytes of a string without escapes or control characters (which the tree reads), nil for anything else.
    mutating func string() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = at
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                at += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<at - 1])
            }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            at += 1
        }
        return nil
    }

    /// A number as JSON writes it (`-`, digits, a fraction, an exponent): its text, whether it has
    /// neither fraction nor exponent, and then its value when it has at most 18 digits (no overflow).
    /// Nil when the bytes after it run on with any of `0-9 . e E + -`: the tree takes such a run as
    /// one token and reads it in its own way.
    private mutating func numberText() -> (text: UnsafeBufferPointer<UInt8>, integral: Bool, integer: Int64?)? {
        skipSpace()
        let start = at
        let negative = at < bytes.count && bytes[at] == UInt8(ascii: "-")
        if negative { at += 1 }
        var value: Int64 = 0
        let digits = self.digits { value = value &* 10 &+ Int64($0) }
        guard digits > 0 else { return nil }
        var integral = true
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard self.digits({ _ in }) > 0 else { return nil }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard self.digits({ _ in }) > 0 else { return nil }
        }
        if at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"),
                 UInt8(ascii: "-"): return nil
            default: break
            }
        }
        return (UnsafeBufferPointer(rebasing: bytes[start..<at]), integral, integral && digits <= 18 ? (negative ? -value : value) : nil)
    }

    /// Steps over decimal digits, handing each to `digit`; how many there were.
    private mutating func digits(_ digit: (UInt8) -> Void) -> Int {
        let start = at
        while at < bytes.count, Self.isDigit(bytes[at]) {
            digit(bytes[at] - UInt8(ascii: "0"))
            at += 1
        }
        return at - start
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// A number the tree reads as an integer, of at most 18 digits.
    mutating func integer() -> Int64? {
        numberText()?.integer
    }

    /// A number as the tree reads it into a Double: an integer converted, or what `Double` makes of the text.
    mutating func number() -> Double? {
        guard let (text, integral, integer) = numberText() else { return nil }
        if integral { return integer.map(Double.init) }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Reads an object whose every field `field` takes (called with the key and the scanner at its value).
    mutating func fields(_ field: (UnsafeBufferPointer<UInt8>, inout LineScanner) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), field(key, &self) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    static func equal(_ text: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        text.count == word.utf8CodeUnitCount && memcmp(text.baseAddress!, word.utf8Start, text.count) == 0
    }

    static func equal(_ text: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        text.count == other.count && other.withUnsafeBufferPointer { text.isEmpty || memcmp(text.baseAddress!, $0.baseAddress!, text.count) == 0 }
    }

    /// A UUID in its canonical form (8-4-4-4-12 hex digits, either case); anything else is left to `UUID(uuidString:)`.
    static func uuid(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &raw) { raw -> Bool in
            var at = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    guard text[at] == UInt8(ascii: "-") else { return false }
                    at += 1
                }
                guard let high = hexDigit(text[at]), let low = hexDigit(text[at + 1]) else { return false }
                raw[i] = high << 4 | low
                at += 2
            }
            return true
        }
        return complete ? UUID(uuid: raw) : nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
