import CLibXML2
import Glibc

/// Streams an XML file through libxml2's xmlTextReader and hands out, one at a time, each element at
/// `yieldDepth` with everything inside it. Only that element's subtree is ever held, so a 1.3 GB
/// export is read in constant memory.
final class XMLElementStream {
    /// For callers that read nodes themselves (`advance`).
    let reader: xmlTextReaderPtr
    private let source: ByteSource
    private let fileName: String
    private let yieldDepth: Int32
    /// When set, elements at the yield depth with other names are passed over, their subtrees unread.
    private let only: Set<String>?
    /// The status of a move already made (passing over an element) that `next` has yet to look at.
    private var pendingStatus: Int32?
    /// The open elements from `yieldDepth` down.
    private var stack: [ExportElement] = []
    /// Element and attribute names are interned by libxml2's dictionary: decode each pointer once.
    private var names: [UnsafePointer<xmlChar>: String] = [:]
    /// The same for attribute names, with the `ExportElement.Attribute` each is; the few names of an
    /// export are looked for by pointer in a short list before the dictionary.
    private var recentAttributeNames: [(pointer: UnsafePointer<xmlChar>, name: String, known: ExportElement.Attribute?)] = []
    /// The last value read of each `ExportElement.Attribute` that `repeats`: exports repeat types, sources,
    /// versions, units and metadata keys from element to element, and an equal value is not decoded again.
    private var lastValues = [String](repeating: "", count: ExportElement.Attribute.allCases.count)
    private var firstError: ImportError?
    /// The root element's attributes (HealthData's locale), once the root was read.
    private(set) var rootAttributes: [(name: String, value: String)] = []
    private(set) var rootName: String?

    /// Added to every line reported: a stream resumed past bad XML starts mid-file.
    private let lineOffset: Int

    init(source: ByteSource, fileName: String, yieldDepth: Int, lineOffset: Int = 0, only: Set<String>? = nil) throws(ImportError) {
        self.source = source
        self.only = only
        self.lineOffset = lineOffset
        self.fileName = fileName
        self.yieldDepth = Int32(yieldDepth)
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue)
        let context = Unmanaged.passUnretained(source).toOpaque()
        guard let reader = xmlReaderForIO({ context, buffer, length in
            guard let context, let buffer else { return -1 }
            return Int32(Unmanaged<ByteSource>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: Int(length)))
        }, nil, context, fileName, nil, options) else {
            throw ImportError.cannotOpen(fileName, "libxml2 could not start a reader")
        }
        self.reader = reader
        xmlTextReaderSetStructuredErrorHandler(reader, { context, error in
            guard let context, let error else { return }
            Unmanaged<XMLElementStream>.fromOpaque(context).takeUnretainedValue().noteError(error.pointee)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { xmlFreeTextReader(reader) }

    private func noteError(_ error: xmlError) {
        let message = error.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue, firstError == nil else { return }
        firstError = ImportError.malformed(file: fileName, line: Int(error.line) + lineOffset, column: Int(error.int2), message: message)
    }

    /// The next complete element at the yield depth; nil at the end of the document.
    func next() throws(ImportError) -> ExportElement? {
        while try advance() {
            let depth = xmlTextReaderDepth(reader)
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                if depth == 0 {
                    rootName = name(xmlTextReaderConstName(reader))
                    rootAttributes = attributes()
                }
                guard depth >= yieldDepth else { continue }
                if depth == yieldDepth, let only, !only.contains(name(xmlTextReaderConstName(reader))) {
                    if xmlTextReaderIsEmptyElement(reader) != 1 { pendingStatus = xmlTextReaderNext(reader) }
                    continue
                }
                // The node's own line: the parser's position is already further on.
                var element = ExportElement(name: name(xmlTextReaderConstName(reader)), line: nodeLine,
                                            attributeCount: Int(xmlTextReaderAttributeCount(reader)))
                readAttributes(into: &element)
                if xmlTextReaderIsEmptyElement(reader) == 1 {
                    if let done = close(element) { return done }
                } else {
                    stack.append(element)
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                guard depth >= yieldDepth, let element = stack.popLast() else { continue }
                if let done = close(element) { return done }
            default:
                continue
            }
        }
        return nil
    }

    /// Moves the reader to the next node, for callers that read nodes themselves; false at the end of
    /// the document. An error names the file, line and column.
    func advance() throws(ImportError) -> Bool {
        let status = pendingStatus ?? xmlTextReaderRead(reader)
        pendingStatus = nil
        if status == 0 { return false }
        if status < 0 {
            throw firstError ?? .malformed(file: fileName, line: Int(xmlTextReaderGetParserLineNumber(reader)) + lineOffset,
                                           column: Int(xmlTextReaderGetParserColumnNumber(reader)),
                                           message: "the XML reader stopped")
        }
        if let firstError { throw firstError }
        return true
    }

    /// The line of the file the current node starts on (1-based).
    var nodeLine: Int { Int(xmlGetLineNo(xmlTextReaderCurrentNode(reader))) + lineOffset }

    /// libxml2's interned copy of `name`: the reader's node names are these same pointers, so a name is
    /// recognised by comparing pointers.
    func interned(_ name: String) -> UnsafePointer<xmlChar>? { xmlTextReaderConstString(reader, name) }

    /// Attaches a finished element to its parent, or returns it when it is at the yield depth.
    private func close(_ element: ExportElement) -> ExportElement? {
        if stack.isEmpty { return element }
        stack[stack.count - 1].children.append(element)
        return nil
    }

    private func readAttributes(into element: inout ExportElement) {
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let (name, known) = attributeName(xmlTextReaderConstName(reader))
            let value = xmlTextReaderConstValue(reader)
            if let known, known.repeats {
                element.append(name: name, value: self.value(value, of: known), as: known)
            } else {
                element.append(name: name, bytes: UnsafeBufferPointer(start: value, count: value.map { Int(xmlStrlen($0)) } ?? 0), as: known)
            }
        }
        xmlTextReaderMoveToElement(reader)
    }

    /// The value of an attribute that `repeats`: the string made for the last one when the bytes are equal.
    private func value(_ pointer: UnsafePointer<xmlChar>?, of known: ExportElement.Attribute) -> String {
        guard let pointer else { return "" }
        let same = lastValues[known.rawValue].withCString { strcmp($0, UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)) == 0 }
        if !same { lastValues[known.rawValue] = String(cString: pointer) }
        return lastValues[known.rawValue]
    }

    private func attributeName(_ pointer: UnsafePointer<xmlChar>?) -> (String, ExportElement.Attribute?) {
        guard let pointer else { return ("", nil) }
        if let index = recentAttributeNames.firstIndex(where: { $0.pointer == pointer }) {
            return (recentAttributeNames[index].name, recentAttributeNames[index].known)
        }
        let decoded = name(pointer)
        let known = ExportElement.Attribute(name: decoded)
        if recentAttributeNames.count < 32 { recentAttributeNames.append((pointer, decoded, known)) }
        return (decoded, known)
    }

    private func attributes() -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            result.append((name(xmlTextReaderConstName(reader)), xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""))
        }
        xmlTextReaderMoveToElement(reader)
        return result
    }

    private func name(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        if let known = names[pointer] { return known }
        let decoded = String(cString: pointer)
        names[pointer] = decoded
        return decoded
    }
}
