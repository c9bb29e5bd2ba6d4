/// One element of an export document with its attributes, text and children, as read.
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
    }

    let name: String
    /// In document order; names are unique within an element in well-formed XML.
    private(set) var attributes: [(name: String, value: String)]
    /// For each `Attribute`, 1 + its index in `attributes`; 0 when the element does not have it.
    private var slots = SIMD16<UInt8>()
    var children: [ExportElement] = []
    var text = ""
    /// The line of the file the element starts on (1-based).
    let line: Int

    init(name: String, attributes: [(name: String, value: String)] = [], children: [ExportElement] = [],
         text: String = "", line: Int = 0) {
        self.init(name: name, line: line)
        for (name, value) in attributes { append(name: name, value: value, as: Attribute(name: name)) }
        self.children = children
        self.text = text
    }

    init(name: String, line: Int) {
        self.name = name
        self.attributes = []
        self.line = line
    }

    /// Adds an attribute read; `known` is the `Attribute` it is, if any (the XML reader knows it by its
    /// name's interned pointer, without comparing names).
    mutating func append(name: String, value: String, as known: Attribute?) {
        attributes.append((name, value))
        if let known, attributes.count <= Int(UInt8.max) { slots[known.rawValue] = UInt8(attributes.count) }
    }

    subscript(attribute: Attribute) -> String? {
        let slot = Int(slots[attribute.rawValue])
        return slot == 0 ? nil : attributes[slot - 1].value
    }

    subscript(attribute: String) -> String? {
        attributes.first { $0.name == attribute }?.value
    }

    /// The children named `name`.
    func children(_ name: String) -> [ExportElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func childText(_ name: String) -> String? { children.first { $0.name == name }?.text }
}
