/// The Health app's internal DTD declares elements and CDATA attributes (`#REQUIRED` or `#IMPLIED`)
/// and nothing else: it changes nothing libxml2 reports (no entities, no default or fixed values,
/// no attribute types that normalise values), yet with it libxml2 looks every attribute of every
/// element up in the DTD (`xmlIsID`, `xmlIsRef`), about a tenth of the parse. Such a DOCTYPE is
/// handed to libxml2 as the newlines it spanned, so lines keep their numbers; any other is kept.
enum InertDTD {
    /// `prefix` (the document's first bytes) with an inert DOCTYPE replaced by its newlines; nil when
    /// there is none, it does not end inside `prefix`, or it declares anything that matters.
    static func withoutDoctype(_ prefix: [UInt8]) -> [UInt8]? {
        guard let open = find(Array("<!DOCTYPE".utf8), in: prefix, from: 0),
              let end = inertSubsetEnd(prefix, from: open + 9) else { return nil }
        let newlines = prefix[open..<end].filter { $0 == 10 }
        return Array(prefix[..<open]) + newlines + prefix[end...]
    }

    /// Just past the `]>` ending the DOCTYPE begun before `start`, when it holds only a root name, an
    /// internal subset of comments, `<!ELEMENT …>` and CDATA `<!ATTLIST …>` declarations.
    private static func inertSubsetEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = skipSpace(bytes, start)
        while i < bytes.count, !isSpace(bytes[i]), bytes[i] != UInt8(ascii: "[") { i += 1 }
        i = skipSpace(bytes, i)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        while true {
            i = skipSpace(bytes, i)
            guard i < bytes.count else { return nil }
            let rest = bytes[i...]
            if rest.starts(with: "]".utf8) {
                let close = skipSpace(bytes, i + 1)
                return close < bytes.count && bytes[close] == UInt8(ascii: ">") ? close + 1 : nil
            } else if rest.starts(with: "<!--".utf8) {
                guard let end = find(Array("-->".utf8), in: bytes, from: i + 4) else { return nil }
                i = end + 3
            } else if rest.starts(with: "<!ELEMENT".utf8) || rest.starts(with: "<!ATTLIST".utf8) {
                guard let end = bytes[i...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                if rest.starts(with: "<!ATTLIST".utf8), !onlyCDATA(bytes[(i + 9)..<end]) { return nil }
                i = end + 1
            } else {
                return nil
            }
        }
    }

    /// An ATTLIST body: the element's name, then (attribute, CDATA, #REQUIRED or #IMPLIED) triples.
    private static func onlyCDATA(_ body: ArraySlice<UInt8>) -> Bool {
        let words = body.split(whereSeparator: isSpace).dropFirst()
        guard words.count % 3 == 0 else { return false }
        return stride(from: words.startIndex, to: words.endIndex, by: 3).allSatisfy { at in
            words[at + 1].elementsEqual("CDATA".utf8)
                && (words[at + 2].elementsEqual("#REQUIRED".utf8) || words[at + 2].elementsEqual("#IMPLIED".utf8))
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 10 || byte == 13 || byte == 9 }

    private static func skipSpace(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start
        while i < bytes.count, isSpace(bytes[i]) { i += 1 }
        return i
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
