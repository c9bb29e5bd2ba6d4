import Foundation
import HealthModel
import HealthWire
import XCTest

/// `healthctl export` whose connections to a real healthd are cut mid-type goes on from the last
/// sample it wrote (the anchor each streamed page carries): its output is byte for byte that of an
/// uninterrupted export, every sample once, even when what it had written is deleted meanwhile.
final class ExportResumeTests: XCTestCase {
    func testAnExportCutOffMidTypeGoesOnFromTheLastSampleWritten() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let total = 30_000
        let samples = (0..<total).map { i in
            let start = Authz.midnight - Int64(i) * 1_000_000
            return Sample(type: Authz.heartRate, start: start, end: start, body: .quantity(Quantity(Double(i % 90 + 40), "count/min"), count: 1))
        }
        for first in stride(from: 0, to: total, by: 5_000) { try owner.save(Array(samples[first..<first + 5_000])) }

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
        let errors = Pipe()
        export.standardError = errors
        export.standardOutput = FileHandle.nullDevice
        try export.run()
        defer { if export.isRunning { kill(export.processIdentifier, SIGKILL) } }
        try waitFor("the export's first lines") { Self.size(cut) > 0 }
        proxy.cut()
        // The pages already received are written; then the export waits for a connection.
        var (size, steadySince) = (Self.size(cut), Date())
        try waitFor("the export to stop writing") {
            if Self.size(cut) != size { (size, steadySince) = (Self.size(cut), Date()) }
            return Date().timeIntervalSince(steadySince) > 0.5
        }
        XCTAssertTrue(export.isRunning, "the export waits for the server")
        let written = try String(contentsOfFile: cut, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThan(written.count, 0)
        XCTAssertLessThan(written.count, total, "cut off mid-type")

        // What it wrote is deleted while it is cut off: there is no sample left to find its place by.
        let writtenUUIDs = try written.map { line in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try XCTUnwrap(UUID(uuidString: try XCTUnwrap(object["uuid"] as? String)))
        }
        for first in stride(from: 0, to: writtenUUIDs.count, by: 5_000) {
            let batch = Array(writtenUUIDs[first..<min(first + 5_000, writtenUUIDs.count)])
            XCTAssertEqual(owner.call(.deleteObjects(.uuids(batch))), .deleteObjects(deletedCount: UInt64(batch.count)))
        }
        try proxy.open()
        let failures = errors.fileHandleForReading.readDataToEndOfFile()
        export.waitUntilExit()
        XCTAssertEqual(export.terminationStatus, 0, String(decoding: failures, as: UTF8.self))
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
