import AppleHealthImport
import Foundation
import HealthModel
import HealthWire
import XCTest

/// Each real export read by the importer against what a plain count of its XML says: every record,
/// workout, route point and beat is accounted for (stored or reported), and sources and devices
/// come out as the file names them.
final class AppleHealthFixtureTests: XCTestCase {
    private struct Read {
        var records = 0, workouts = 0, routePoints = 0, beats = 0
        var sources: Set<String> = []
        var devices: Set<Device> = []
        var summary = ImportSummary()
    }

    private func read(_ path: String) throws -> Read {
        let export = try AppleHealthExport(archive: ExportArchive(path: path))
        var result = Read()
        while let item = try export.next() {
            if case .series(let series, _) = item {
                result.sources.insert(series.sourceName)
                if case .locations(let points) = series.points { result.routePoints += points.count }
                if case .beats(let beats) = series.points { result.beats += beats.count }
            }
            guard case .sample(let sample, _) = item else { continue }
            let children = sample.correlationObjects ?? []
            for object in [sample] + children {
                result.sources.insert(object.sourceRevision?.source.name ?? "")
                if let device = object.device { result.devices.insert(device) }
            }
            result.records += children.count + (sample.quantity != nil || sample.categoryValue != nil ? 1 : 0)
            result.workouts += sample.workout != nil ? 1 : 0
        }
        result.summary = export.summary
        for (type, tally) in export.summary.byType {
            if type.hasPrefix("HKQuantityType") || type.hasPrefix("HKCategoryType") { result.records += tally.skippedTotal }
            if type == "HKWorkoutTypeIdentifier" { result.workouts += tally.skippedTotal }
        }
        result.sources.formUnion(export.summary.bySource.keys)
        return result
    }

    /// The document (and GPX files) of an export as text, zip entries through unzip -p.
    private func texts(_ url: URL) throws -> (document: String, gpx: [String]) {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if url.pathExtension == "zip" {
            let unzip = Process()
            unzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            unzip.arguments = ["python3", "-c", "import zipfile,sys; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('apple_health_export/export.xml').decode())", url.path]
            let out = Pipe()
            unzip.standardOutput = out
            try unzip.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            unzip.waitUntilExit()
            return (String(decoding: data, as: UTF8.self), [])
        }
        let folder = isDirectory.boolValue ? url.appendingPathComponent("apple_health_export") : url.deletingLastPathComponent()
        let document = isDirectory.boolValue ? folder.appendingPathComponent("export.xml") : url
        let routes = folder.appendingPathComponent("workout-routes")
        let gpx = ((try? FileManager.default.contentsOfDirectory(atPath: routes.path)) ?? []).filter { isDirectory.boolValue && $0.hasSuffix(".gpx") }
        return (try String(contentsOf: document, encoding: .utf8), try gpx.map { try String(contentsOf: routes.appendingPathComponent($0), encoding: .utf8) })
    }

    private func count(_ pattern: String, in text: String) throws -> Int {
        try NSRegularExpression(pattern: pattern).numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }

    /// The values of an attribute, or with `pattern`, of the first group of any expression.
    private func values(_ attribute: String, in text: String, pattern: String? = nil) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern ?? "\\s\(attribute)=\"([^\"]*)\"")
        return Set(regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]).replacingOccurrences(of: "&amp;", with: "&")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">") }
        })
    }

    func testEveryFixtureAccountsForWhatAPlainXMLCountSays() throws {
        let folder = try AppleHealthFixtures.folder()
        for name in AppleHealthFixtures.exports {
            let url = folder.appendingPathComponent(name)
            let (document, gpx) = try texts(url)
            let read = try read(url.path)
            XCTAssertEqual(read.records, try count("<Record[\\s>]", in: document), name)
            XCTAssertEqual(read.workouts, try count("<Workout[\\s>]", in: document), name)
            let points = try count("<Location[\\s>]", in: document) + gpx.reduce(0) { $0 + ((try? count("<trkpt[\\s>]", in: $1)) ?? 0) }
            XCTAssertEqual(read.routePoints, points, name)
            XCTAssertEqual(read.beats, try count("<InstantaneousBeatsPerMinute[\\s>]", in: document), name)
            XCTAssertEqual(read.sources, try values("sourceName", in: document), name)
            // One device per description once the process-memory address is taken out.
            let described = try values("device", in: document).map { $0.replacing(/0x[0-9a-f]+/, with: "") }
            XCTAssertEqual(read.devices.count, Set(described).count + (try values("", in: document, pattern: "key=\"HKDeviceName\" value=\"([^\"]*)\"").count), name)
        }
    }

    func testOneWatchUnderThreeAddressesIsOneDevice() throws {
        let read = try read(try AppleHealthFixtures.folder().appendingPathComponent("alxdrcirilo-apple-health-parser/export.zip").path)
        XCTAssertEqual(read.devices, [Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,7",
                                             softwareVersion: "10.2")])
        XCTAssertEqual(read.sources, ["Alexandre's Apple Watch", "Alexandre's iPhone"])
    }

    func testTheExportVersionIsReadAndAnOlderOneIsAccepted() throws {
        let folder = try AppleHealthFixtures.folder()
        let export = try AppleHealthExport(archive: ExportArchive(path: folder.appendingPathComponent("watsonbox-healthkit-parser/export_unsupported_version.xml").path))
        XCTAssertEqual(export.exportVersion, 4)
    }
}

/// `healthctl import-apple-health` against a real healthd: a fixture goes in with its sources, and a
/// second run stores nothing.
final class AppleHealthImportEndToEndTests: XCTestCase {
    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func total(_ report: [String: Any], _ field: String) -> Int {
        ((report["types"] as? [String: [String: Any]]) ?? [:]).values.reduce(0) { $0 + ($1[field] as? Int ?? 0) }
    }

    func testAFixtureImportsWithItsSourcesAndAgainStoresNothing() throws {
        let fixture = try AppleHealthFixtures.folder().appendingPathComponent("watsonbox-healthkit-parser/export.xml").path
        let server = try ServerProcess()
        let tokenFile = server.dataDirectory.appendingPathComponent("owner.token").path
        let first = try healthctl(["import-apple-health", fixture, "--format", "json", "--batch", "2"], server: server, tokenFile: tokenFile)
        XCTAssertEqual(first.status, 0, first.errors)
        let stored = try json(first.output)
        XCTAssertEqual(total(stored, "stored"), 9, first.output) // 7 samples, 1 correlation, Me
        XCTAssertEqual(Set((stored["sources"] as? [String: Any] ?? [:]).keys), ["Health", "iPhone", "Strava", "Clock"])

        let owner = try RawClient.session(server, token: server.ownerToken)
        guard case .sources(let sources)? = owner.call(.querySources(type: "HKQuantityTypeIdentifierStepCount", predicate: nil)) else {
            return XCTFail("no source listing")
        }
        XCTAssertEqual(sources.map(\.name), ["iPhone"])
        XCTAssertTrue(sources.allSatisfy(\.isImported))

        let second = try healthctl(["import-apple-health", fixture, "--format", "json"], server: server, tokenFile: tokenFile)
        XCTAssertEqual(second.status, 0, second.errors)
        let again = try json(second.output)
        XCTAssertEqual(total(again, "stored"), 0, second.output)
        XCTAssertEqual(total(again, "already_present"), 9, second.output)
    }
}
