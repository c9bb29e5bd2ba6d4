/// One element of an export document with its attributes and children, as read (the export's
/// elements hold no text the importer reads; GPX files, which do, are read by `GPXTrack`).
struct ExportElement: Sendable {
    /// Attributes the mapping reads from nearly every element: found by slot, not by comparing names.
    enum Attribute: Int, CaseIterable, Sendable {
        case type, sourceName, source, sourceVersion, device, startDate, endDate, unit, value, recordCount, average, key,
             workoutActivityType, date, path

        var name: String { String(describing: self) }

        private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

        init?(name: String) {
            guard let known = Self.byName[name] else { return nil }
            self = known
        }

        /// Whether exports repeat this attribute's value from element to element (types, sources,
        /// units, metadata keys): the reader then hands out the string it made last time. Other values
        /// (dates, numbers, device descriptions, which carry a new address each time) are kept as the
        /// bytes read and decoded only when asked for.
        var repeats: Bool {
            switch self {
            case .type, .sourceName, .source, .sourceVersion, .unit, .key, .workoutActivityType: true
            case .device, .startDate, .endDate, .value, .recordCount, .average, .date, .path: false
            }
        }
    }

    /// An attribute's value: a string, or a range of `bytes`.
    private struct Entry: Sendable {
        let name: String
        let text: String?
        let start: Int32
        let count: Int32
    }

    let name: String
    /// In document order; names are unique within an element in well-formed XML.
    private var entries: [Entry] = []
    /// The UTF-8 of the values kept as bytes, one after another.
    private var bytes: [UInt8] = []
    /// For each `Attribute`, 1 + its index in `entries`; 0 when the element does not have it.
    private var slots = SIMD16<UInt8>()
    var children: [ExportElement] = []
    /// The line of the file the element starts on (1-based).
    let line: Int
    /// The last line any part of the element starts on (its last descendant's).
    var lastLine: Int { children.reduce(line) { max($0, $1.lastLine) } }

    init(name: String, attributes: [(name: String, value: String)] = [], children: [ExportElement] = [], line: Int = 0) {
        self.init(name: name, line: line)
        for (name, value) in attributes { append(name: name, value: value, as: Attribute(name: name)) }
        self.children = children
    }

    init(name: String, line: Int, attributeCount: Int = 0) {
        self.name = name
        self.line = line
        entries.reserveCapacity(attributeCount)
    }

    /// The attributes in document order, as strings.
    var attributes: [(name: String, value: String)] { entries.indices.map { (entries[$0].name, value(at: $0)) } }

    /// Adds an attribute read; `known` is the `Attribute` it is, if any (the XML reader knows it by its
    /// name's interned pointer, without comparing names).
    mutating func append(name: String, value: String, as known: Attribute?) {
        append(Entry(name: name, text: value, start: 0, count: 0), as: known)
    }

    /// Adds an attribute read whose value is kept as its UTF-8 `value`.
    mutating func append(name: String, bytes value: UnsafeBufferPointer<UInt8>, as known: Attribute?) {
        append(Entry(name: name, text: nil, start: Int32(bytes.count), count: Int32(value.count)), as: known)
        bytes.append(contentsOf: value)
    }

    private mutating func append(_ entry: Entry, as known: Attribute?) {
        entries.append(entry)
        if let known, entries.count <= Int(UInt8.max) { slots[known.rawValue] = UInt8(entries.count) }
    }

    subscript(attribute: Attribute) -> String? {
        let slot = Int(slots[attribute.rawValue])
        return slot == 0 ? nil : value(at: slot - 1)
    }

    subscript(attribute: String) -> String? {
        entries.firstIndex { $0.name == attribute }.map(value(at:))
    }

    /// `body` over the UTF-8 of the attribute's value, without making a string; nil when the element
    /// does not have the attribute.
    func withBytes<Result>(_ attribute: Attribute, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        let slot = Int(slots[attribute.rawValue])
        guard slot > 0 else { return nil }
        let entry = entries[slot - 1]
        if var text = entry.text { return text.withUTF8(body) }
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(entry.start)..<Int(entry.start + entry.count)])) }
    }

    private func value(at index: Int) -> String {
        let entry = entries[index]
        if let text = entry.text { return text }
        return String(decoding: bytes[Int(entry.start)..<Int(entry.start + entry.count)], as: UTF8.self)
    }

    /// The children named `name`.
    func children(_ name: String) -> [ExportElement] { children.filter { $0.name == name } }
}
