import Foundation
import HealthModel

/// How results are printed (`--format`).
enum OutputFormat: String, Sendable, CaseIterable {
    case table, json, csv
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
