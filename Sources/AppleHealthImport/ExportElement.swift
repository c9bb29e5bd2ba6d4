/// One element of an export document with its attributes, text and children, as read.
struct ExportElement: Sendable {
    let name: String
    /// In document order; names are unique within an element in well-formed XML.
    var attributes: [(name: String, value: String)]
    var children: [ExportElement] = []
    var text = ""
    /// The line of the file the element starts on (1-based).
    let line: Int

    init(name: String, attributes: [(name: String, value: String)] = [], children: [ExportElement] = [],
         text: String = "", line: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    subscript(attribute: String) -> String? {
        attributes.first { $0.name == attribute }?.value
    }

    /// The children named `name`.
    func children(_ name: String) -> [ExportElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func childText(_ name: String) -> String? { children.first { $0.name == name }?.text }
}
