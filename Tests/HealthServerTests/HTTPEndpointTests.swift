import Foundation
import HealthModel
import HealthWire
import XCTest

/// healthd's HTTP listener against a real process: operator endpoints, sign-in and its cookie,
/// CSRF, the JSON API answering what the binary protocol answers, the live event stream, limits.
final class HTTPEndpointTests: XCTestCase {
    private let app = "com.example.http"

    func testHealthzReadyzAndMetricsCountASave() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let health = try http.request("GET", "/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.body, "ok\n")
        XCTAssertEqual(try http.request("GET", "/readyz").body, "ready\n")
        XCTAssertEqual(try http.request("POST", "/healthz").status, 405)

        let before = try http.request("GET", "/metrics")
        XCTAssertEqual(before.status, 200)
        XCTAssertEqual(before.header("content-type"), "text/plain; version=0.0.4; charset=utf-8")
        XCTAssertTrue(before.body.contains("healthstore_build_info{version=\"\(HealthStoreVersion.string)\"} 1"), before.body)
        XCTAssertEqual(Self.metric(before.body, "healthstore_samples_stored_total"), 0)

        let owner = try RawClient.session(server, token: server.ownerToken)
        try owner.save([Authz.quantity(Authz.steps, 100, "count", at: 0), Authz.quantity(Authz.steps, 50, "count", at: 1)])
        XCTAssertEqual(owner.call(.saveObjects([Authz.quantity(Authz.steps, -1, "count", at: 2)]))?.errorCode, .invalidArgument)

        let after = try http.request("GET", "/metrics").body
        XCTAssertEqual(Self.metric(after, "healthstore_samples_stored_total"), 2)
        XCTAssertEqual(Self.metric(after, "healthstore_samples_rejected_total"), 1)
        XCTAssertEqual(Self.metric(after, #"healthstore_calls_total{kind="SaveObjects",outcome="ok"}"#), 1)
        XCTAssertEqual(Self.metric(after, #"healthstore_calls_total{kind="SaveObjects",outcome="INVALID_ARGUMENT"}"#), 1)
        XCTAssertEqual(Self.metric(after, #"healthstore_call_duration_seconds_count{kind="SaveObjects"}"#), 2)
        XCTAssertEqual(Self.metric(after, #"healthstore_connections_open{role="owner"}"#), 1)
        XCTAssertGreaterThanOrEqual(Self.metric(after, "healthstore_commit_batch_jobs_count") ?? 0, 1)
        XCTAssertGreaterThan(Self.metric(after, "healthstore_store_size_bytes") ?? 0, 0)
        for family in ["healthstore_observers_open", "healthstore_long_running_queries_open", "healthstore_commit_duration_seconds_sum"] {
            XCTAssertNotNil(Self.metric(after, family), family)
        }
    }

    /// A save answered on the loop and one answered through a task (an app's first save after a
    /// permission change) are counted as one call kind, whichever comes first.
    func testSavesOnTheLoopAndThroughATaskCountAsOneKind() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let owner = try RawClient.session(server, token: server.ownerToken)
        let app = try RawClient.session(server, token: try owner.registerApp(self.app))
        try owner.decide(self.app, [Authz.heartRate], .share, grant: true)
        XCTAssertEqual(app.call(.saveObjects([Authz.quantity(Authz.heartRate, 60, "count/min", at: 1)])), .saveObjects([.stored]))
        XCTAssertEqual(app.call(.saveObjects([Authz.quantity(Authz.heartRate, 61, "count/min", at: 2)])), .saveObjects([.stored]))
        try owner.save([Authz.quantity(Authz.heartRate, 62, "count/min", at: 3)])
        try owner.decide(self.app, [Authz.heartRate], .share, grant: true)
        XCTAssertEqual(app.call(.saveObjects([Authz.quantity(Authz.heartRate, -1, "count/min", at: 4)]))?.errorCode, .invalidArgument)
        XCTAssertEqual(app.call(.saveObjects([Authz.quantity(Authz.heartRate, -1, "count/min", at: 5)]))?.errorCode, .invalidArgument)

        let text = try http.request("GET", "/metrics").body
        XCTAssertEqual(Self.metric(text, #"healthstore_calls_total{kind="SaveObjects",outcome="ok"}"#), 3)
        XCTAssertEqual(Self.metric(text, #"healthstore_calls_total{kind="SaveObjects",outcome="INVALID_ARGUMENT"}"#), 2)
        XCTAssertEqual(Self.metric(text, #"healthstore_call_duration_seconds_count{kind="SaveObjects"}"#), 5)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix(#"healthstore_calls_total{kind="SaveObjects",outcome="ok"}"#) }.count, 1)
        XCTAssertEqual(Self.metric(text, "healthstore_samples_rejected_total"), 2)
    }

    func testMetricsCanRequireTheOperatorToken() throws {
        let server = try ServerProcess(extraArguments: ["--metrics-auth", "operator"])
        let http = HTTPTestClient(server)
        XCTAssertEqual(try http.request("GET", "/metrics").status, 401)
        XCTAssertEqual(try http.request("GET", "/metrics", headers: ["Authorization": "Bearer \(server.ownerToken)"]).status, 401)
        XCTAssertEqual(try http.request("GET", "/metrics", headers: ["Authorization": "Bearer \(server.operatorToken)"]).status, 200)
        XCTAssertEqual(try http.request("GET", "/healthz").status, 200, "health checks stay open")
    }

    func testSignInNeedsTheOwnerTokenAndSetsAStrictHttpOnlyCookie() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        let wrong = try http.signIn("not-a-token")
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.errorCode, "UNAUTHENTICATED")
        XCTAssertEqual(try http.request("GET", "/api/overview").status, 401, "no session")

        let owner = try RawClient.session(server, token: server.ownerToken)
        let appSignIn = try http.signIn(try owner.registerApp(app))
        XCTAssertEqual(appSignIn.status, 403, "an app token is no owner token")

        let signedIn = try http.signIn(server.ownerToken)
        XCTAssertEqual(signedIn.status, 200)
        let cookie = try XCTUnwrap(signedIn.header("set-cookie"))
        for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] { XCTAssertTrue(cookie.contains(flag), cookie) }
        XCTAssertFalse(cookie.contains(server.ownerToken), "the token never leaves in a cookie")
        XCTAssertFalse(server.log.contains(server.ownerToken), "nor in the log")
        let me = try http.request("GET", "/api/session")
        XCTAssertEqual(me.json["owner"] as? String, "owner")
        XCTAssertEqual(me.json["csrf_token"] as? String, http.csrfToken)

        let foreign = try http.request("POST", "/api/session", json: #"{"token": "\#(server.ownerToken)"}"#,
                                       headers: ["Origin": "http://evil.example"])
        XCTAssertEqual(foreign.status, 403)
    }

    func testStateChangesNeedTheCSRFHeaderAndSignOutEndsTheSession() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        let body = #"{"bundle_id": "\#(app)", "name": "Example"}"#
        let missing = try http.request("POST", "/api/apps", json: body, headers: ["X-CSRF-Token": ""])
        XCTAssertEqual(missing.status, 403)
        XCTAssertEqual(missing.errorCode, "PERMISSION_DENIED")
        XCTAssertEqual(try http.request("POST", "/api/apps", json: body, headers: ["X-CSRF-Token": "0123"]).status, 403)
        XCTAssertEqual((try http.request("GET", "/api/apps").json["apps"] as? [[String: Any]])?.count, 0, "nothing registered")

        let registered = try http.request("POST", "/api/apps", json: body)
        XCTAssertEqual(registered.status, 201)
        XCTAssertNotNil(registered.json["token"] as? String)
        XCTAssertEqual((try http.request("GET", "/api/apps").json["apps"] as? [[String: Any]])?.first?["bundle_id"] as? String, app)

        XCTAssertEqual(try http.request("DELETE", "/api/session", headers: ["X-CSRF-Token": ""]).status, 403)
        let signedOut = try http.request("DELETE", "/api/session")
        XCTAssertEqual(signedOut.status, 204)
        XCTAssertTrue(signedOut.header("set-cookie")?.contains("Max-Age=0") == true)
        let whoAmI = try http.request("GET", "/api/session")
        XCTAssertEqual(whoAmI.status, 200, "signed out is an answer, not an error")
        XCTAssertEqual(whoAmI.body, "{\"owner\":null}\n")
        XCTAssertEqual(try http.request("GET", "/api/apps").status, 401)
    }

    func testSessionWithoutCookieAnswersNoOwnerAndTheCatalogNamesValuesAndActivities() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        let nobody = try http.request("GET", "/api/session")
        XCTAssertEqual(nobody.status, 200)
        XCTAssertTrue(nobody.json["owner"] is NSNull, nobody.body)
        XCTAssertNil(nobody.json["csrf_token"])
        http.cookie = "healthstore_session=unknown"
        XCTAssertEqual(try http.request("GET", "/api/session").body, "{\"owner\":null}\n", "an unknown session is no owner either")

        _ = try http.signIn(server.ownerToken)
        let catalog = try http.request("GET", "/api/catalog").json
        let types = try XCTUnwrap(catalog["types"] as? [[String: Any]])
        let sleep = try XCTUnwrap(types.first { $0["short_name"] as? String == "SleepAnalysis" })
        let stages = try XCTUnwrap(sleep["value_names"] as? [String: String])
        XCTAssertEqual(stages["0"], "inBed")
        XCTAssertEqual(stages["5"], "asleepREM")
        XCTAssertTrue(types.first { $0["short_name"] as? String == "HeartRate" }?["value_names"] is NSNull, "quantity types have none")
        let activities = try XCTUnwrap(catalog["workout_activity_types"] as? [String: String])
        XCTAssertEqual(activities["37"], "running")
        XCTAssertEqual(activities.count, WorkoutActivityTypes.names.count)
    }

    func testAnAssetTheBrowserHoldsAnswers304() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let first = try http.request("GET", "/")
        let etag = try XCTUnwrap(first.header("etag"))
        let again = try http.request("GET", "/", headers: ["If-None-Match": etag])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body, "")
        XCTAssertEqual(again.header("etag"), etag)
        XCTAssertEqual(try http.request("GET", "/", headers: ["If-None-Match": "W/\"x\", \(etag)"]).status, 304, "one of several tags")
        XCTAssertEqual(try http.request("GET", "/", headers: ["If-None-Match": "\"stale\""]).status, 200)
    }

    func testStatisticsCollectionAndSamplesEqualTheBinaryProtocolsAnswers() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        try owner.save((0..<30).map { Authz.quantity(Authz.steps, Double(10 * $0 + 1), "count", at: Int64($0) * 97) })
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)

        let (from, to) = (Authz.midnight, Authz.midnight + 3 * Authz.dayLength)
        let query = StatisticsCollectionQuery(type: Authz.steps, options: .cumulativeSum, anchor: from, interval: IntervalComponents(hours: 6),
                                              timeZone: "Europe/Berlin", from: from, to: to)
        var expected: [[Double?]] = []
        for case .statisticsCollection(let buckets, _, _) in owner.results(.queryStatisticsCollection(query)) {
            expected += buckets.map { [Double($0.start), Double($0.end), $0.sum?.value] }
        }
        let answer = try http.request("GET", "/api/statistics/collection?type=StepCount&interval=6h&tz=Europe/Berlin&from=\(from)&to=\(to)")
        XCTAssertEqual(answer.status, 200, answer.body)
        let buckets = try XCTUnwrap(answer.json["buckets"] as? [[String: Any]])
        let got = buckets.map { bucket -> [Double?] in
            [(bucket["start_micros"] as? NSNumber)?.doubleValue, (bucket["end_micros"] as? NSNumber)?.doubleValue,
             ((bucket["sum"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue]
        }
        XCTAssertEqual(got, expected)
        XCTAssertEqual(expected.compactMap { $0[2] }.reduce(0, +), Double((0..<30).map { 10 * $0 + 1 }.reduce(0, +)))

        let stored = Fixtures.samples(of: owner.results(.querySamples(SampleQuery(types: [Authz.steps], sort: [SampleSortDescriptor(.startDate)]))))
        let samples = try XCTUnwrap(try http.request("GET", "/api/samples?type=HKQuantityTypeIdentifierStepCount").json["samples"] as? [[String: Any]])
        XCTAssertEqual(samples.compactMap { $0["uuid"] as? String }, stored.map(\.uuid.uuidString))
        XCTAssertEqual(samples.first?["source"].flatMap { ($0 as? [String: Any])?["bundle_id"] as? String }, "com.apple.Health")

        let overview = try http.request("GET", "/api/overview").json
        let types = try XCTUnwrap(overview["types"] as? [[String: Any]])
        XCTAssertEqual(types.map { $0["short_name"] as? String }, ["StepCount"])
        XCTAssertEqual(types.first?["count"] as? Int, 30)
        XCTAssertEqual((types.first?["latest"] as? [String: Any])?["uuid"] as? String, stored.last?.uuid.uuidString)
    }

    func testApprovingAPendingRequestOverHTTPLetsTheAppSave() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let client = try RawClient.session(server, token: try owner.registerApp(app))
        XCTAssertEqual(client.call(.requestAuthorization(share: [Authz.steps], read: [])), .requestAuthorization)
        XCTAssertEqual(client.call(.saveObjects([Authz.quantity(Authz.steps, 5, "count", at: 0)]))?.errorCode, .authorizationNotDetermined)

        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        let pending = try XCTUnwrap(try http.request("GET", "/api/authorization-requests").json["requests"] as? [[String: Any]])
        XCTAssertEqual(pending.count, 1)
        XCTAssertEqual(pending.first?["type"] as? String, Authz.steps)
        XCTAssertEqual(pending.first?["direction"] as? String, "share")

        let decided = try http.request("POST", "/api/apps/\(app)/decisions",
                                       json: #"{"decisions": [{"type": "StepCount", "direction": "share", "grant": true}]}"#)
        XCTAssertEqual(decided.json["recorded"] as? Int, 1, decided.body)
        try client.save([Authz.quantity(Authz.steps, 5, "count", at: 0)])
        let permissions = try http.request("GET", "/api/apps/\(app)/permissions").json["permissions"] as? [[String: Any]]
        XCTAssertEqual(permissions?.first?["state"] as? String, "granted")
        XCTAssertEqual(try http.request("POST", "/api/apps/com.example.nobody/decisions",
                                        json: #"{"decisions": [{"type": "StepCount", "direction": "share", "grant": true}]}"#).status, 404)
    }

    func testAppsSourcePrioritySourcesDevicesAndCharacteristics() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken, device: Device(name: "Scale"))
        let token = try owner.registerApp(app)
        let client = try RawClient.session(server, token: token, device: Device(name: "Band"))
        XCTAssertEqual(client.call(.requestAuthorization(share: [Authz.steps], read: [])), .requestAuthorization)
        try client.save([Authz.quantity(Authz.steps, 5, "count", at: 0)])
        try owner.save([Authz.quantity(Authz.steps, 7, "count", at: 1)])
        XCTAssertEqual(owner.call(.writeCharacteristics(Authz.storedCharacteristics)), .writeCharacteristics)
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)

        let sources = try http.request("GET", "/api/sources?type=StepCount").json["sources"] as? [[String: Any]]
        XCTAssertEqual(Set(sources?.compactMap { $0["bundle_id"] as? String } ?? []), [app, "com.apple.Health"])
        let devices = try http.request("GET", "/api/devices?type=StepCount").json["devices"] as? [[String: Any]]
        XCTAssertEqual(Set(devices?.compactMap { $0["name"] as? String } ?? []), ["Band", "Scale"])
        let characteristics = try http.request("GET", "/api/characteristics").json
        XCTAssertEqual(characteristics["date_of_birth"] as? String, "1980-05-17")
        XCTAssertEqual(characteristics["blood_type"] as? Int, 2)

        let order = try http.request("PUT", "/api/source-priority", json: #"{"type": "StepCount", "bundle_ids": ["\#(app)", "com.apple.Health"]}"#)
        XCTAssertEqual(order.status, 200, order.body)
        let priority = try http.request("GET", "/api/source-priority?type=StepCount").json["sources"] as? [[String: Any]]
        XCTAssertEqual(priority?.compactMap { $0["bundle_id"] as? String }.prefix(2), [app, "com.apple.Health"])
        guard case .sourcePriority(_, let binaryOrder)? = owner.call(.getSourcePriority(type: Authz.steps)) else { return XCTFail("GetSourcePriority") }
        XCTAssertEqual(priority?.compactMap { $0["bundle_id"] as? String }, binaryOrder.map(\.bundleID))

        let rotated = try http.request("POST", "/api/apps/\(app)/token")
        let newToken = try XCTUnwrap(rotated.json["token"] as? String)
        XCTAssertNotEqual(newToken, token)
        XCTAssertThrowsError(try RawClient.session(server, token: token), "the old token stops working")
        _ = try RawClient.session(server, token: newToken)
        let revoked = try http.request("DELETE", "/api/apps/\(app)")
        XCTAssertEqual(revoked.status, 200, revoked.body)
        XCTAssertNotNil(revoked.json["connections_closed"] as? Int)
        XCTAssertThrowsError(try RawClient.session(server, token: newToken), "a revoked app's token stops working")
        XCTAssertEqual(try http.request("DELETE", "/api/apps/com.example.nobody").status, 404)
    }

    func testTheEventStreamDeliversASampleAnAppSaves() throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken)
        let client = try RawClient.session(server, token: try owner.registerApp(app))
        XCTAssertEqual(client.call(.requestAuthorization(share: [Authz.heartRate], read: [])), .requestAuthorization)
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        let events = try http.openEvents()
        XCTAssertTrue(events.waitFor("event: ready"), events.text)
        XCTAssertTrue(events.text.contains("Content-Type: text/event-stream"), events.text)

        let sample = Authz.quantity(Authz.heartRate, 61, "count/min", at: 5)
        try client.save([sample])
        XCTAssertTrue(events.waitFor(sample.uuid.uuidString), events.text)
        XCTAssertTrue(events.text.contains("event: samples"), events.text)
        XCTAssertTrue(events.text.contains(#""bundle_id":"\#(app)""#), events.text)

        XCTAssertEqual(try http.request("DELETE", "/api/session").status, 204)
        XCTAssertTrue(events.waitFor("event: error"), "signing out ends the stream: \(events.text)")
        XCTAssertTrue(events.text.contains("UNAUTHENTICATED"), events.text)
    }

    func testBodiesAndSignInFailuresAreLimited() throws {
        let server = try ServerProcess()
        var http = HTTPTestClient(server)
        _ = try http.signIn(server.ownerToken)
        let huge = #"{"bundle_id": "\#(app)", "name": "\#(String(repeating: "x", count: 70_000))"}"#
        let tooLarge = try http.request("POST", "/api/apps", json: huge)
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(tooLarge.errorCode, "DATA_SIZE_EXCEEDED")

        let guesser = HTTPTestClient(server)
        let statuses = try (0..<6).map { _ in try guesser.request("POST", "/api/session", json: #"{"token": "guess"}"#).status }
        XCTAssertEqual(statuses.first, 401)
        XCTAssertEqual(statuses.last, 429, "\(statuses)")
    }

    func testTheDashboardPageAndSecurityHeaders() throws {
        let server = try ServerProcess()
        let http = HTTPTestClient(server)
        let page = try http.request("GET", "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("content-type"), "text/html; charset=utf-8")
        XCTAssertTrue(page.body.contains(#"<script type="module" src="/js/app.js""#), page.body)
        XCTAssertFalse(page.body.contains("<script>"), "no inline script")
        let csp = try XCTUnwrap(page.header("content-security-policy"))
        XCTAssertTrue(csp.hasPrefix("default-src 'self'"), csp)
        XCTAssertFalse(csp.contains("unsafe-inline"), csp)
        XCTAssertEqual(page.header("x-content-type-options"), "nosniff")
        XCTAssertEqual(try http.request("GET", "/js/app.js").header("content-type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(try http.request("GET", "/nothing.js").status, 404)
        XCTAssertEqual(try http.request("GET", "/../Package.swift").status, 404)
        let unknown = try http.request("GET", "/api/nothing")
        XCTAssertEqual(unknown.status, 401, "the API needs a session before anything else")
    }

    func testHTTPCanBeTurnedOffAndHelpListsIt() throws {
        let server = try ServerProcess(extraArguments: ["--http", "off"])
        XCTAssertEqual(server.httpPort, 0)
        XCTAssertFalse(server.log.contains("http 127.0.0.1"), server.log)
        let help = try helpText()
        XCTAssertTrue(help.contains("--http HOST:PORT"), help)
    }

    /// `healthd --help` as printed on standard output.
    private func helpText() throws -> String {
        let process = Process()
        process.executableURL = try ServerProcess.binary()
        process.arguments = ["--help"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The value of the sample line named `name` (with its labels) in Prometheus text.
    private static func metric(_ text: String, _ name: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
