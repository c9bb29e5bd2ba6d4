import Foundation

/// How results are printed (`--format`).
enum OutputFormat: String, Sendable, CaseIterable {
    case table, json, csv
}

/// A JSON value with stable output: keys sorted, integers without a fraction.
enum JSON: Sendable, Hashable, Encodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .double(let v): try v.isFinite ? container.encode(v) : container.encodeNil()
        case .string(let v): try container.encode(v)
        case .array(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        }
    }

    /// `.string`, or `.null` for nil.
    static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }

    /// The text: pretty-printed for documents, one line for streams (JSON Lines).
    func text(pretty: Bool = true) -> String {
        guard pretty else {
            // Lines are written directly: exports print one per sample, where JSONEncoder's
            // per-value setup would cost more than the sample's whole trip from the server.
            var line: [UInt8] = []
            line.reserveCapacity(512)
            write(to: &line)
            return String(decoding: line, as: UTF8.self)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("null".utf8), as: UTF8.self)
    }

    /// Appends the one-line text, byte for byte what JSONEncoder writes with sorted keys and
    /// unescaped slashes.
    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let v): out.append(contentsOf: (v ? "true" : "false").utf8)
        case .int(let v): out.append(contentsOf: String(v).utf8)
        case .double(let v):
            guard v.isFinite else { return out.append(contentsOf: "null".utf8) }
            var text = v.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(contentsOf: text.utf8)
        case .string(let v): Self.write(string: v, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, key) in fields.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func write(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole instead of byte by byte.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: string.utf8)
            return out.append(UInt8(ascii: "\""))
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Rows with named columns, printed as an aligned table or CSV.
struct Table: Sendable, Hashable {
    var columns: [String]
    var rows: [[String]]

    /// Columns padded to their widest cell; numbers right-aligned so digits line up.
    func text() -> String {
        guard !columns.isEmpty else { return "" }
        var widths = columns.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        let numeric = numericColumns
        func line(_ cells: [String], header: Bool) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                if i == cells.count - 1 && !(numeric[i] && !header) { return cell }
                return numeric[i] && !header ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        var out = [line(columns, header: true), line(widths.map { String(repeating: "-", count: $0) }, header: true)]
        out += rows.map { line($0, header: false) }
        return out.joined(separator: "\n")
    }

    /// RFC 4180 CSV with a header row.
    func csv() -> String {
        func field(_ text: String) -> String {
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return ([columns] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\n")
    }

    /// Rows as JSON objects keyed by lower-case column names; cells of numeric columns are numbers
    /// and empty cells null.
    func json() -> JSON {
        let keys = columns.map { $0.lowercased().replacingOccurrences(of: " ", with: "_") }
        let numeric = numericColumns
        return .array(rows.map { row in
            .object(Dictionary(uniqueKeysWithValues: zip(keys, row).enumerated().map { i, pair in
                (pair.0, Self.cell(pair.1, numeric: numeric[i]))
            }))
        })
    }

    /// Per column: every non-empty cell is a number (and there is at least one row).
    private var numericColumns: [Bool] {
        columns.indices.map { i in !rows.isEmpty && rows.allSatisfy { i >= $0.count || $0[i].isEmpty || Double($0[i]) != nil } }
    }

    private static func cell(_ text: String, numeric: Bool) -> JSON {
        guard numeric else { return .string(text) }
        if text.isEmpty { return .null }
        if let whole = Int64(text) { return .int(whole) }
        return .double(Double(text)!)
    }
}

/// A command's result: a table for people and CSV, and JSON (by default the table's rows).
struct Report: Sendable {
    var table: Table
    var json: JSON?
    /// Extra lines after the table (charts, notes); table format only.
    var footer: [String] = []

    /// The report in `format`.
    func render(_ format: OutputFormat) -> String {
        switch format {
        case .table: ([table.rows.isEmpty ? "(none)" : table.text()] + footer).joined(separator: "\n")
        case .csv: table.csv()
        case .json: (json ?? table.json()).text()
        }
    }
}
