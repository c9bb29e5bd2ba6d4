import Foundation
import HealthModel
import HealthWire
import XCTest

/// Apple Health exports uploaded over HTTP (`POST /api/imports`) and imported by healthd itself.
final class HTTPImportTests: XCTestCase {
    /// An export.xml holding `records` step counts from one iPhone, one minute apart.
    private func export(records: Int) -> String {
        let rows = (0..<records).map { i in
            let minute = String(format: "%02d:%02d", 8 + i / 60 % 12, i % 60)
            let day = String(format: "%02d", 1 + i / 720 % 28)
            return #"<Record type="HKQuantityTypeIdentifierStepCount" sourceName="Test iPhone" sourceVersion="17.1" unit="count" "#
                + #"creationDate="2024-05-\#(day) \#(minute):30 +0200" startDate="2024-05-\#(day) \#(minute):00 +0200" "#
                + #"endDate="2024-05-\#(day) \#(minute):59 +0200" value="\#(i + 1)"/>"#
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n<!-- HealthKit Export Version: 11 -->\n"
            + "<!ELEMENT HealthData ANY>\n]>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-06-01 08:10:05 +0200\"/>\n"
            + rows.joined(separator: "\n") + "\n</HealthData>\n"
    }

    private func upload(_ http: HTTPTestClient, _ body: String, headers: [String: String] = [:]) throws -> HTTPTestClient.Answer {
        try http.request("POST", "/api/imports", json: body, headers: headers, contentType: "application/xml")
    }

    /// Polls the import until it is no longer running (bounded only so a broken server fails the test).
    private func finished(_ http: HTTPTestClient, _ started: HTTPTestClient.Answer) throws -> [String: Any] {
        let id = try XCTUnwrap(started.json["id"] as? String, started.body)
        for _ in 0..<600 {
            let status = try http.request("GET", "/api/imports/\(id)").json
            if status["state"] as? String != "running" { return status }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("import \(id) did not finish")
    }

    private func stepCount(_ status: [String: Any]) -> [String: Any]? {
        ((status["summary"] as? [String: Any])?["types"] as? [[String: Any]])?.first { $0["name"] as? String == "HKQuantityTypeIdentifierStepCount" }
    }

    /// The uploads `server` holds in its data directory.
    private func uploads(_ server: ServerProcess) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.appendingPathComponent("uploads").path)) ?? [])
            .filter { $0.hasPrefix("healthstore-upload-") }
    }

    func testAnUploadedExportImportsOnceWithItsSourceAndOnlyTheOwnerMayUpload() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        XCTAssertEqual(try upload(http, export(records: 3)).status, 401, "signed out")
        _ = try http.signIn(server.ownerToken)
        let noCSRF = try upload(http, export(records: 3), headers: ["X-CSRF-Token": ""])
        XCTAssertEqual(noCSRF.status, 403)

        let first = try upload(http, export(records: 3))
        XCTAssertEqual(first.status, 202, first.body)
        let done = try finished(http, first)
        XCTAssertEqual(done["state"] as? String, "done", "\(done)")
        XCTAssertEqual(stepCount(done)?["stored"] as? Int, 3, "\(done)")
        XCTAssertGreaterThan(done["bytes_read"] as? Int ?? 0, 0)
        XCTAssertEqual(done["records"] as? Int, 3)
        let sources = try XCTUnwrap((done["summary"] as? [String: Any])?["sources"] as? [[String: Any]])
        XCTAssertEqual(sources.map { $0["name"] as? String }, ["Test iPhone"])
        let samples = try XCTUnwrap(try http.request("GET", "/api/samples?type=StepCount").json["samples"] as? [[String: Any]])
        XCTAssertEqual(samples.count, 3)
        XCTAssertEqual((samples.first?["source"] as? [String: Any])?["name"] as? String, "Test iPhone", "saved as its own source")

        let again = try finished(http, try upload(http, export(records: 3)))
        XCTAssertEqual(stepCount(again)?["stored"] as? Int, 0, "\(again)")
        XCTAssertEqual(stepCount(again)?["already_present"] as? Int, 3, "\(again)")
        XCTAssertEqual((try http.request("GET", "/api/samples?type=StepCount").json["samples"] as? [[String: Any]])?.count, 3)
        XCTAssertEqual(uploads(server), [], "the temporary files are gone")
        XCTAssertEqual(try http.request("GET", "/api/imports/nothing").status, 404)
    }

    func testAnUploadedRouteIsBuiltWithItsWorkoutOnce() throws {
        let fixture = try AppleHealthFixtures.folder().appendingPathComponent("dogsheep-healthkit-to-sqlite/export.xml")
        let body = try String(contentsOf: fixture, encoding: .utf8)
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        func route(_ status: [String: Any]) -> [String: Any]? {
            ((status["summary"] as? [String: Any])?["types"] as? [[String: Any]])?.first { $0["name"] as? String == "HKWorkoutRouteTypeIdentifier" }
        }
        let first = try finished(http, try upload(http, body))
        XCTAssertEqual(route(first)?["stored"] as? Int, 1, "\(first)")
        let again = try finished(http, try upload(http, body))
        XCTAssertEqual(route(again)?["stored"] as? Int, 0, "\(again)")
        XCTAssertEqual(route(again)?["already_present"] as? Int, 1, "\(again)")
        let owner = try RawClient.session(server, token: server.ownerToken)
        let routes = owner.results(.querySamples(SampleQuery(types: [TypeCatalog.workoutRouteType.identifier]))).flatMap { result -> [Sample] in
            if case .samples(let page) = result { page } else { [] }
        }
        XCTAssertEqual(routes.map { $0.sourceRevision?.source.name }, ["Simon\u{2019}s iPhone"], "built as the export's source")
    }

    func testABadFileFailsClearlyAndLeavesNothingBehind() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        let failed = try finished(http, try upload(http, "this is not an export"))
        XCTAssertEqual(failed["state"] as? String, "failed", "\(failed)")
        let error = try XCTUnwrap(failed["error"] as? [String: Any])
        let detail = try XCTUnwrap(error["error"] as? [String: Any])
        XCTAssertEqual(detail["code"] as? String, "INVALID_ARGUMENT")
        XCTAssertTrue((detail["message"] as? String ?? "").contains("malformed XML"), "\(detail)")
        XCTAssertEqual(try upload(http, "").status, 400, "an empty body")
        XCTAssertEqual(uploads(server), [])
        XCTAssertEqual((try http.request("GET", "/api/overview").json["types"] as? [Any])?.count, 0, "nothing stored")
    }

    func testTheUploadLimitAndOneImportAtATime() throws {
        let server = try ServerProcess(extraArguments: ["--http-upload-limit", "4MiB"])
        var http = HTTPTestClient(server)
        let huge = String(repeating: "x", count: 5 << 20)
        // Refused from its headers, before anything is written to disk.
        XCTAssertEqual(try upload(http, huge).status, 401, "signed out")
        _ = try http.signIn(server.ownerToken)
        XCTAssertEqual(try upload(http, huge, headers: ["X-CSRF-Token": "0123"]).status, 403, "wrong CSRF token")
        let tooLarge = try upload(http, huge)
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(tooLarge.errorCode, "DATA_SIZE_EXCEEDED")
        XCTAssertEqual(uploads(server), [])

        // Large enough that the first is still running when the second arrives.
        let big = export(records: 12_000)
        let first = try upload(http, big)
        XCTAssertEqual(first.status, 202, first.body)
        let second = try upload(http, big)
        XCTAssertEqual(second.status, 409, second.body)
        XCTAssertEqual(try finished(http, first)["state"] as? String, "done")
        let next = try upload(http, export(records: 1))
        XCTAssertEqual(next.status, 202, "the next one may start")
        XCTAssertEqual(try finished(http, next)["state"] as? String, "done")
        XCTAssertEqual(uploads(server), [])
    }

    func testUploadsLeftByAKilledServerAreRemovedAtRestartAndNothingElse() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        XCTAssertEqual(try finished(http, try upload(http, export(records: 1)))["state"] as? String, "done")
        server.stopNow()
        // What a server killed mid-upload leaves, beside files that are not its uploads.
        let uploadsDirectory = server.dataDirectory.appendingPathComponent("uploads")
        let abandoned = uploadsDirectory.appendingPathComponent("healthstore-upload-Ab12Cd")
        try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: true)
        try Data(export(records: 2).utf8).write(to: abandoned.appendingPathComponent("export"))
        let notOurs = uploadsDirectory.appendingPathComponent("keep-me")
        try FileManager.default.createDirectory(at: notOurs, withIntermediateDirectories: true)
        let alsoNotOurs = server.dataDirectory.appendingPathComponent("healthstore-upload-elsewhere")
        try FileManager.default.createDirectory(at: alsoNotOurs, withIntermediateDirectories: true)

        let restarted = try ServerProcess(dataDirectory: server.dataDirectory)
        XCTAssertEqual(uploads(restarted), [], "the abandoned upload is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: notOurs.path), "a directory not named as an upload stays")
        XCTAssertTrue(FileManager.default.fileExists(atPath: alsoNotOurs.path), "only the uploads directory is cleaned")
        XCTAssertTrue(restarted.log.contains("removed 1 upload(s)"), restarted.log)
    }

    func testAnUploadInUseIsNotRemovedByAnotherServerStartingOnTheSameDataDirectory() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        // Large enough that it is still running when the second server has started.
        let started = try upload(http, export(records: 20_000))
        XCTAssertEqual(started.status, 202, started.body)
        let inUse = uploads(server)
        XCTAssertEqual(inUse.count, 1)
        let otherStore = server.dataDirectory.deletingLastPathComponent().appendingPathComponent("other.sqlite").path
        let second = try ServerProcess(extraArguments: ["--store", "sqlite:" + otherStore], dataDirectory: server.dataDirectory)
        let id = try XCTUnwrap(started.json["id"] as? String)
        XCTAssertEqual(try http.request("GET", "/api/imports/\(id)").json["state"] as? String, "running")
        XCTAssertEqual(uploads(server), inUse, "the upload in use stays")
        XCTAssertFalse(second.log.contains("removed"), second.log)
        XCTAssertEqual(try finished(http, started)["state"] as? String, "done")
        XCTAssertEqual(uploads(server), [])
    }
}
