import Foundation
import XCTest

/// `healthctl import-apple-health` cut off mid-run (the importer or the server killed with SIGKILL)
/// and run again ends with exactly what a clean import stores; `--skip-invalid` and `--progress`
/// through the command itself.
final class AppleHealthImportResumeTests: XCTestCase {
    /// A generated export of several days (bench/apple-import/generate.py), about 12,000 records:
    /// long enough that an import is still running when it is killed.
    private static let generated: Result<String, Error> = Result {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("apple-export-\(UUID().uuidString.prefix(8))")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", root.appendingPathComponent("bench/apple-import/generate.py").path, out.path,
                            "--days", "8", "--start", "2024-03-01"]
        python.standardOutput = FileHandle.nullDevice
        try python.run()
        python.waitUntilExit()
        guard python.terminationStatus == 0 else { throw TestFailure("generate.py exited with \(python.terminationStatus)") }
        return out.path
    }

    override class func tearDown() {
        if case .success(let path) = generated { try? FileManager.default.removeItem(atPath: path) }
        super.tearDown()
    }

    private func ownerTokenFile(_ server: ServerProcess) -> String {
        server.dataDirectory.appendingPathComponent("owner.token").path
    }

    /// What the owner's store holds, by way of `healthctl export`: samples per type, and every UUID
    /// in the order the export lists them (a duplicate would appear twice).
    private func storedSet(_ server: ServerProcess) throws -> (byType: [String: Int], uuids: [String]) {
        let file = server.dataDirectory.deletingLastPathComponent().appendingPathComponent("stored-\(UUID().uuidString.prefix(8)).jsonl")
        let export = try healthctl(["export", "--output", file.path], server: server, tokenFile: ownerTokenFile(server))
        XCTAssertEqual(export.status, 0, export.errors)
        var byType: [String: Int] = [:], uuids: [String] = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            // A correlation's members travel inside it; they count as stored objects too.
            for stored in [object] + (object["objects"] as? [[String: Any]] ?? []) {
                byType[stored["type"] as? String ?? "", default: 0] += 1
                uuids.append(stored["uuid"] as? String ?? "")
            }
        }
        return (byType, uuids)
    }

    /// The store of a clean, uninterrupted import of the generated export, in a server of its own.
    private func cleanImport(_ export: String) throws -> (byType: [String: Int], uuids: [String]) {
        let server = try ServerProcess()
        let run = try healthctl(["import-apple-health", export], server: server, tokenFile: ownerTokenFile(server))
        XCTAssertEqual(run.status, 0, run.errors)
        return try storedSet(server)
    }

    /// Starts the import with --progress and returns once its progress line says `records` were
    /// read, with the process still running.
    private func importUnderWay(_ export: String, server: ServerProcess, records: Int) throws -> Process {
        let process = Process()
        process.executableURL = try XCTUnwrap(server.process.executableURL).deletingLastPathComponent().appendingPathComponent("healthctl")
        process.arguments = ["import-apple-health", export, "--batch", "200", "--progress",
                             "--unix", server.unixPath, "--token-file", ownerTokenFile(server)]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = ""
        while true {
            let chunk = errors.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw TestFailure("the import ended before \(records) records were read:\n\(seen)") }
            seen += String(decoding: chunk, as: UTF8.self)
            let counts = seen.matches(of: /(\d+) records read/).compactMap { Int($0.1) }
            if let last = counts.last, last >= records { break }
        }
        // Nobody reads its stderr from here on: a full pipe must not stop it before the kill.
        errors.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        return process
    }

    private func assertSameStore(_ resumed: (byType: [String: Int], uuids: [String]),
                                 _ clean: (byType: [String: Int], uuids: [String]), file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(resumed.byType, clean.byType, file: file, line: line)
        XCTAssertEqual(resumed.uuids.count, Set(resumed.uuids).count, "a UUID stored twice", file: file, line: line)
        XCTAssertEqual(Set(resumed.uuids), Set(clean.uuids), file: file, line: line)
    }

    func testAnImportKilledMidRunAndRunAgainStoresWhatACleanImportStores() throws {
        let export = try Self.generated.get()
        let clean = try cleanImport(export)
        let server = try ServerProcess()
        let importer = try importUnderWay(export, server: server, records: 3000)
        kill(importer.processIdentifier, SIGKILL)
        importer.waitUntilExit()
        XCTAssertEqual(importer.terminationReason, .uncaughtSignal)
        let partial = try storedSet(server)
        XCTAssertLessThan(partial.uuids.count, clean.uuids.count, "killed before the end")

        let again = try healthctl(["import-apple-health", export], server: server, tokenFile: ownerTokenFile(server))
        XCTAssertEqual(again.status, 0, again.errors)
        assertSameStore(try storedSet(server), clean)
    }

    func testAnImportWhoseServerIsKilledMidRunResumesAfterTheRestart() throws {
        let export = try Self.generated.get()
        let clean = try cleanImport(export)
        let server = try ServerProcess()
        let importer = try importUnderWay(export, server: server, records: 3000)
        server.stopNow()
        importer.waitUntilExit()
        XCTAssertNotEqual(importer.terminationStatus, 0, "the importer reports the lost server")

        let restarted = try ServerProcess(dataDirectory: server.dataDirectory)
        let partial = try storedSet(restarted)
        XCTAssertLessThan(partial.uuids.count, clean.uuids.count, "killed before the end")
        let again = try healthctl(["import-apple-health", export], server: restarted, tokenFile: ownerTokenFile(restarted))
        XCTAssertEqual(again.status, 0, again.errors)
        assertSameStore(try storedSet(restarted), clean)
    }

    /// An iOS 8/9-era document whose third record has a metadata key written as an attribute name
    /// with a space in it: not well-formed XML.
    private func exportWithABadElement() throws -> String {
        let record = { (minute: Int, extra: String) in
            "<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\" "
                + "startDate=\"2024-01-01 10:\(minute):00 +0100\" endDate=\"2024-01-01 10:\(minute):30 +0100\" value=\"\(minute + 1)\"\(extra)/>"
        }
        let lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<HealthData locale=\"en_US\">",
                     " <ExportDate value=\"2024-01-02 10:00:00 +0100\"/>",
                     record(10, ""), record(11, ""), record(12, " My Key=\"1\""), record(13, ""), record(14, ""), "</HealthData>"]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString.prefix(8)).xml")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    func testSkipInvalidThroughTheCommandStoresTheGoodRecordsAndCountsTheBadOne() throws {
        let file = try exportWithABadElement()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let server = try ServerProcess()
        let stopped = try healthctl(["import-apple-health", file], server: server, tokenFile: ownerTokenFile(server))
        XCTAssertNotEqual(stopped.status, 0)
        XCTAssertTrue(stopped.errors.contains(":6:"), "the file, line and column: \(stopped.errors)")
        XCTAssertEqual(try storedSet(server).uuids.count, 2, "what was read before the bad line stays stored")

        let skipped = try healthctl(["import-apple-health", file, "--skip-invalid", "--format", "json"], server: server,
                                    tokenFile: ownerTokenFile(server))
        XCTAssertEqual(skipped.status, 0, skipped.errors)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(skipped.output.utf8)) as? [String: Any], skipped.output)
        XCTAssertEqual(report["invalid_count"] as? Int, 1, skipped.output)
        let steps = (report["types"] as? [String: [String: Any]])?["HKQuantityTypeIdentifierStepCount"]
        XCTAssertEqual(steps?["stored"] as? Int, 2, skipped.output)
        XCTAssertEqual(steps?["already_present"] as? Int, 2, skipped.output)
        XCTAssertEqual(try storedSet(server).byType, ["HKQuantityTypeIdentifierStepCount": 4])
    }

    func testProgressNamesBytesOfTheTotalRateETAAndTheCurrentType() throws {
        let export = try Self.generated.get()
        let server = try ServerProcess()
        let run = try healthctl(["import-apple-health", export, "--progress"], server: server, tokenFile: ownerTokenFile(server))
        XCTAssertEqual(run.status, 0, run.errors)
        let lines = run.errors.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).map { String($0).replacing("\u{1B}[K", with: "") }
        let progress = lines.filter { $0.hasPrefix("import-apple-health: ") && $0.contains("records read") }
        XCTAssertFalse(progress.isEmpty, run.errors)
        let shape = /import-apple-health: \d+\.\d of \d+\.\d MB \(\d+%\), \d+ records read, \d+(\.\d)?\/s(, ETA \d+:\d\d)?, (\S+)/
        for line in progress {
            let match = try XCTUnwrap(line.wholeMatch(of: shape), line)
            let type = String(match.3)
            XCTAssertTrue(type.hasPrefix("HK") || ["ActivitySummary", "Me", "ExportDate"].contains(type), line)
        }
        XCTAssertTrue(progress.contains { $0.contains(", ETA ") }, run.errors)
        XCTAssertTrue(run.errors.contains(" samples read from \(export)/apple_health_export/export.xml in "), run.errors)
    }
}
