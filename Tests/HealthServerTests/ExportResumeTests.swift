import Foundation
import HealthModel
import HealthWire
import XCTest

/// `healthctl export` whose connections to a real healthd are cut mid-type goes on from the last
/// sample it wrote (the anchor each streamed page carries): its output is byte for byte that of an
/// uninterrupted export, every sample once, even when what it had written is deleted meanwhile.
final class ExportResumeTests: XCTestCase {
    func testAnExportCutOffMidTypeGoesOnFromTheLastSampleWritten() throws {
        try exportCutOffMidType(Self.heartRates { _ in [:] }) { owner, written in
            // What it wrote is deleted while it is cut off: there is no sample left to find its place by.
            for first in stride(from: 0, to: written.count, by: 5_000) {
                let batch = Array(written[first..<min(first + 5_000, written.count)]).map(\.uuid)
                XCTAssertEqual(owner.call(.deleteObjects(.uuids(batch))), .deleteObjects(deletedCount: UInt64(batch.count)))
            }
        }
    }

    /// A sample the export wrote before the cut and saved again meanwhile (a greater sync version: a
    /// new UUID at a new anchor, which the later read holds) is not written a second time.
    func testASampleSavedAgainWhileTheExportIsCutOffIsNotWrittenTwice() throws {
        let samples = Self.heartRates { i in [MetadataKey.syncIdentifier: .string("reading-\(i)"), MetadataKey.syncVersion: .int(1)] }
        try exportCutOffMidType(samples) { owner, written in
            let again = [written[0], written[written.count - 1]].map { line in
                Sample(type: Authz.heartRate, start: line.start, end: line.start,
                       metadata: [MetadataKey.syncIdentifier: .string(line.syncIdentifier), MetadataKey.syncVersion: .int(2)],
                       body: .quantity(Quantity(200, "count/min"), count: 1))
            }
            XCTAssertEqual(owner.call(.saveObjects(again)), .saveObjects([.replaced, .replaced]))
        }
    }

    /// `total` heart-rate readings, one a second back from midnight, with `metadata(i)`.
    private static func heartRates(_ metadata: (Int) -> Metadata) -> [Sample] {
        (0..<30_000).map { i in
            let start = Authz.midnight - Int64(i) * 1_000_000
            return Sample(type: Authz.heartRate, start: start, end: start, metadata: metadata(i),
                          body: .quantity(Quantity(Double(i % 90 + 40), "count/min"), count: 1))
        }
    }

    /// A line the cut export wrote.
    private struct Written {
        let uuid: UUID
        let start: Microseconds
        let syncIdentifier: String
    }

    /// Stores `samples`, exports them whole, then exports them again through a relay cut after the
    /// first lines; `whileCut` runs while the export waits for the server. The second export's file
    /// must be byte for byte the first's, every sample once.
    private func exportCutOffMidType(_ samples: [Sample], whileCut: (RawClient, [Written]) throws -> Void) throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let total = samples.count
        for first in stride(from: 0, to: total, by: 5_000) { try owner.save(Array(samples[first..<min(first + 5_000, total)])) }

        let directory = server.dataDirectory.deletingLastPathComponent()
        let tokenFile = server.dataDirectory.appendingPathComponent("owner.token").path
        let (whole, cut) = (directory.appendingPathComponent("whole.jsonl").path, directory.appendingPathComponent("cut.jsonl").path)
        let uninterrupted = try healthctl(["export", "--type", Authz.heartRate, "--output", whole], server: server, tokenFile: tokenFile)
        XCTAssertEqual(uninterrupted.status, 0, uninterrupted.errors)
        let expected = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertEqual(expected.split(separator: UInt8(ascii: "\n")).count, total)

        let proxy = try UnixProxy(to: server.unixPath, at: directory.appendingPathComponent("proxy.sock").path)
        let export = try healthctlProcess([], server: server, tokenFile: tokenFile)
        export.arguments = ["export", "--type", Authz.heartRate, "--output", cut, "--unix", proxy.path, "--token-file", tokenFile]
        let errorsPath = directory.appendingPathComponent("export.errors").path
        XCTAssertTrue(FileManager.default.createFile(atPath: errorsPath, contents: nil))
        let errors = try XCTUnwrap(FileHandle(forWritingAtPath: errorsPath))
        export.standardError = errors
        export.standardOutput = FileHandle.nullDevice
        try export.run()
        defer { if export.isRunning { kill(export.processIdentifier, SIGKILL) } }
        try waitFor("the export's first lines") { Self.size(cut) > 0 }
        proxy.cut()
        // The pages already received are written, in whole blocks (a direct write's: the last line
        // may be cut, and the rest waits in memory); then the export waits for a connection.
        var (size, steadySince) = (Self.size(cut), Date())
        try waitFor("the export to stop writing") {
            if Self.size(cut) != size { (size, steadySince) = (Self.size(cut), Date()) }
            return Date().timeIntervalSince(steadySince) > 0.5
        }
        XCTAssertTrue(export.isRunning, "the export waits for the server")
        let text = try String(contentsOfFile: cut, encoding: .utf8)
        let lines = text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1)
        XCTAssertGreaterThan(lines.count, 0)
        XCTAssertLessThan(lines.count, total, "cut off mid-type")
        let written = try lines.map { line in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let metadata = object["metadata"] as? [String: Any]
            return Written(uuid: try XCTUnwrap(UUID(uuidString: try XCTUnwrap(object["uuid"] as? String))),
                           start: try XCTUnwrap((object["start_micros"] as? NSNumber)?.int64Value),
                           syncIdentifier: metadata?[MetadataKey.syncIdentifier] as? String ?? "")
        }
        try whileCut(owner, written)
        try proxy.open()
        // Bounded, so an export that never goes on fails the test instead of holding the run.
        try waitFor("the export to go on and finish", seconds: 180) { !export.isRunning }
        XCTAssertEqual(export.terminationStatus, 0, (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "")
        let resumed = try Data(contentsOf: URL(fileURLWithPath: cut))
        XCTAssertEqual(resumed.split(separator: UInt8(ascii: "\n")).count, total, "every sample once")
        XCTAssertTrue(resumed == expected, "byte for byte the uninterrupted export")
    }

    private static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private func waitFor(_ what: String, seconds: Double = 60, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
            usleep(5_000)
        }
    }
}
