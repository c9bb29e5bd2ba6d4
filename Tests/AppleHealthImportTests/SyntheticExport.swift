import Foundation
import HealthModel
@testable import AppleHealthImport

/// Small exports written for a test: a header in the Health app's shape around the given elements.
enum SyntheticExport {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("apple-export-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// export.xml in a new folder holding `body` inside <HealthData>; returns the file's path.
    static func write(_ body: String, version: Int? = 11, files: [String: String] = [:]) throws -> String {
        let folder = try directory()
        let declaration = version.map { "<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: \($0) -->\n<!ELEMENT HealthData ANY>\n]>\n" } ?? ""
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(declaration)<HealthData locale=\"en_US\">\n"
            + " <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n\(body)\n</HealthData>\n"
        let path = folder.appendingPathComponent("export.xml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for (name, content) in files {
            let file = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: file, atomically: true, encoding: .utf8)
        }
        return path
    }

    /// Everything an export yields, and its summary.
    static func read(_ path: String, force: Bool = false,
                     skipInvalid: Bool = false) throws -> (samples: [Sample], me: [Characteristics], series: [ExportSeries], summary: ImportSummary) {
        let export = try AppleHealthExport(archive: ExportArchive(path: path), force: force, skipInvalid: skipInvalid)
        var samples: [Sample] = []
        var me: [Characteristics] = []
        var series: [ExportSeries] = []
        while let item = try export.next() {
            switch item {
            case .sample(let sample, _): samples.append(sample)
            case .characteristics(let characteristics, _): me.append(characteristics)
            case .series(let one, _): series.append(one)
            }
        }
        return (samples, me, series, export.summary)
    }

    /// A `Record` element with the usual attributes.
    static func record(_ type: String, value: String, unit: String? = "count", source: String = "Phone",
                       start: String = "2024-01-01 01:01:36 +0200", end: String? = nil, device: String? = nil,
                       inner: String = "") -> String {
        var attributes = "type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"17.2\""
        if let device { attributes += " device=\"\(device)\"" }
        if let unit { attributes += " unit=\"\(unit)\"" }
        attributes += " creationDate=\"\(start)\" startDate=\"\(start)\" endDate=\"\(end ?? start)\" value=\"\(value)\""
        return inner.isEmpty ? "<Record \(attributes)/>" : "<Record \(attributes)>\(inner)</Record>"
    }
}
