import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// `healthctl export` from one owner and `healthctl import` into another, against a real healthd:
/// every object kind arrives with the same content and UUID, and a second import stores nothing.
final class ExportImportTests: XCTestCase {
    private let app = "com.example.exporter"
    private let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    private let workout = "HKWorkoutTypeIdentifier"

    func testAnExportImportedIntoAnotherOwnerHasTheSameContentAndReimportingStoresNothing() throws {
        let server = try ServerProcess()
        let directory = server.dataDirectory.deletingLastPathComponent()
        let ownerA = try RawClient.session(server, token: server.ownerToken)
        let operatorClient = try RawClient.session(server, token: server.operatorToken)
        let tokenB = try operatorClient.addOwner("B")
        let tokenFileB = directory.appendingPathComponent("b.token").path
        try tokenB.write(toFile: tokenFileB, atomically: true, encoding: .utf8)

        let samples = try appSavesEveryKind(server, owner: ownerA)

        let file = directory.appendingPathComponent("export.jsonl").path
        let export = try healthctl(["export", "--output", file, "--format", "json"], server: server,
                                   tokenFile: server.dataDirectory.appendingPathComponent("owner.token").path)
        XCTAssertEqual(export.status, 0, export.errors)
        XCTAssertEqual(try healthctlSummary(export.output)["samples"] as? Int, samples.count, "correlation children travel inside it")

        let first = try healthctl(["import", file, "--batch", "2", "--format", "json"], server: server, tokenFile: tokenFileB)
        XCTAssertEqual(first.status, 0, first.errors)
        XCTAssertEqual(try healthctlSummary(first.output)["stored"] as? Int, samples.count)
        XCTAssertTrue(first.errors.contains("import: \(samples.count) read, \(samples.count) stored"), first.errors)

        // Back into the store it came from (the owner imports as the Health app, the objects were
        // saved by the app): every object is already present, counted as such, nothing is refused.
        let home = try healthctl(["import", file, "--format", "json"], server: server,
                                 tokenFile: server.dataDirectory.appendingPathComponent("owner.token").path)
        XCTAssertEqual(home.status, 0, home.errors)
        let homeCounts = try healthctlSummary(home.output)
        XCTAssertEqual(homeCounts["already_present"] as? Int, samples.count)
        XCTAssertEqual(homeCounts["refused"] as? Int, 0)
        XCTAssertFalse(home.errors.contains("line "), "no error line per object: \(home.errors)")

        let ownerB = try RawClient.session(server, token: tokenB)
        let allTypes = [Authz.heartRate, Authz.bloodPressure, sleep, workout]
        let inA = stored(ownerA, types: allTypes), inB = stored(ownerB, types: allTypes)
        XCTAssertEqual(Set(inB.keys), Set(samples.map(\.uuid)))
        for (uuid, sample) in inA {
            XCTAssertEqual(inB[uuid].map(content), content(sample), "\(sample.type) \(uuid)")
            XCTAssertEqual(inA[uuid]?.sourceRevision?.source.bundleID, app)
            XCTAssertEqual(inB[uuid]?.sourceRevision?.source.bundleID, "com.apple.Health", "saved by the importing owner, as Health")
        }
        XCTAssertEqual(inA.values.first { $0.type == Authz.heartRate }?.device, Device(name: "Watch", model: "W1"))

        let again = try healthctl(["import", "-", "--format", "json"], server: server, tokenFile: tokenFileB, stdin: file)
        XCTAssertEqual(again.status, 0, again.errors)
        let counts = try healthctlSummary(again.output)
        XCTAssertEqual(counts["already_present"] as? Int, samples.count)
        XCTAssertEqual(counts["stored"] as? Int, 0)
        XCTAssertEqual(stored(ownerB, types: allTypes).count, samples.count, "nothing duplicated")

        // A bad line is reported with its number; the others are still imported.
        let broken = directory.appendingPathComponent("broken.jsonl").path
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        try ([String(lines[0]), "{\"kind\": \"quantity\"}"] + lines.dropFirst().map(String.init)).joined(separator: "\n")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let partial = try healthctl(["import", broken], server: server, tokenFile: tokenFileB)
        XCTAssertEqual(partial.status, 1)
        XCTAssertTrue(partial.errors.contains("line 2: "), partial.errors)
        XCTAssertTrue(partial.errors.contains("\(samples.count) already present, 1 refused"), partial.errors)
        XCTAssertTrue(partial.output.contains("refused: "), "the summary names the cause: \(partial.output)")
    }

    func testAnExportImportedWithKeepSourcesIntoAFreshStoreKeepsSourcesVersionsAndDevices() throws {
        let server = try ServerProcess()
        let owner = try RawClient.session(server, token: server.ownerToken)
        let samples = try appSavesEveryKind(server, owner: owner)
        let imported = SourceRevision(source: Source(name: "Old Watch", bundleID: ""), version: "9.0", productType: "Watch5,1",
                                      osMajor: 9, osMinor: 3, osPatch: 1)
        let older = Authz.quantity(Authz.heartRate, 61, "count/min", at: 300, device: Device(name: "Old Watch", model: "Watch"))
        let olderImport = Sample(uuid: older.uuid, type: older.type, start: older.start, end: older.end, device: older.device,
                                 sourceRevision: imported, body: older.body)
        XCTAssertEqual(owner.call(.saveObjects([olderImport], keepSources: true)), .saveObjects([.stored]))

        let directory = server.dataDirectory.deletingLastPathComponent()
        let file = directory.appendingPathComponent("export.jsonl").path
        let ownerTokenFile = server.dataDirectory.appendingPathComponent("owner.token").path
        let export = try healthctl(["export", "--output", file], server: server, tokenFile: ownerTokenFile)
        XCTAssertEqual(export.status, 0, export.errors)

        let fresh = try ServerProcess()
        let freshTokenFile = fresh.dataDirectory.appendingPathComponent("owner.token").path
        let first = try healthctl(["import", file, "--keep-sources", "--batch", "2", "--format", "json"], server: fresh,
                                  tokenFile: freshTokenFile)
        XCTAssertEqual(first.status, 0, first.errors)
        XCTAssertEqual(try healthctlSummary(first.output)["stored"] as? Int, samples.count + 1)

        let allTypes = [Authz.heartRate, Authz.bloodPressure, sleep, workout]
        let inA = stored(owner, types: allTypes), inB = stored(try RawClient.session(fresh, token: fresh.ownerToken), types: allTypes)
        XCTAssertEqual(Set(inB.keys), Set(inA.keys))
        for (uuid, sample) in inA {
            XCTAssertEqual(inB[uuid].map(content), content(sample), "\(sample.type) \(uuid)")
            XCTAssertEqual(inB[uuid]?.sourceRevision, sample.sourceRevision, "source, version, product type and OS kept")
        }
        XCTAssertEqual(inB[older.uuid]?.sourceRevision?.source.name, "Old Watch")
        XCTAssertEqual(inB[older.uuid]?.device, Device(name: "Old Watch", model: "Watch"))
        XCTAssertEqual(inB[samples[1].uuid]?.device, Device(name: "Band"), "the app connection's default device, as exported")
        XCTAssertEqual(inB[samples[1].uuid]?.sourceRevision?.version, "2.0")

        let listed = try healthctl(["sources", "--type", "HeartRate", "--format", "json"], server: fresh, tokenFile: freshTokenFile)
        XCTAssertEqual(listed.status, 0, listed.errors)
        let sources = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], listed.output)
        XCTAssertEqual(sources.map { $0["name"] as? String }, [app, "Old Watch"])
        XCTAssertEqual(sources.map { $0["imported"] as? Bool }, [true, true])
        XCTAssertTrue(sources.allSatisfy { $0["imported_time"] is String }, listed.output)
        let table = try healthctl(["sources", "--type", "HeartRate"], server: server, tokenFile: ownerTokenFile)
        XCTAssertTrue(table.output.contains("IMPORTED"), table.output)

        let again = try healthctl(["import", file, "--keep-sources", "--format", "json"], server: fresh, tokenFile: freshTokenFile)
        XCTAssertEqual(again.status, 0, again.errors)
        XCTAssertEqual(try healthctlSummary(again.output)["already_present"] as? Int, samples.count + 1)
        XCTAssertEqual(try healthctlSummary(again.output)["stored"] as? Int, 0)
    }

    func testKeepSourcesBuildsRoutesAndSeriesAgainAsTheSourcesTheirLinesNameAndAuditsThem() async throws {
        let server = try ServerProcess(extraArguments: ["--authorization-policy", "allow-all"])
        let owner = try RawClient.session(server, token: server.ownerToken)
        let runner = try await HealthConnection.connect(to: .tcp(host: "127.0.0.1", port: server.port),
                                                        hello: Hello(token: try owner.registerApp(app)))
        let route = TypeCatalog.workoutRouteType.identifier, beats = TypeCatalog.heartbeatSeriesType.identifier
        try await runner.requestAuthorization(share: [workout, route, beats, Authz.steps], read: [])
        let t0 = Authz.midnight
        let run = Sample(type: workout, start: t0, end: t0 + Authz.hour, body: .workout(Workout(activityType: 37)))
        _ = try await runner.save([run])
        let routeBuilder = runner.routeBuilder()
        _ = try await routeBuilder.build([RouteLocation(time: t0 + Authz.minute, latitude: 47.37, longitude: 8.54).onGrid,
                                          RouteLocation(time: t0 + 2 * Authz.minute, latitude: 47.38, longitude: 8.54).onGrid],
                                         workout: run.uuid)
        let beatBuilder = runner.heartbeatSeriesBuilder(start: t0)
        _ = try await beatBuilder.build([Heartbeat(offset: 0, precededByGap: false), Heartbeat(offset: 800_000, precededByGap: false)])
        let stepBuilder = runner.quantitySeriesBuilder(type: try XCTUnwrap(TypeCatalog.type(Authz.steps)), start: t0)
        _ = try await stepBuilder.build([QuantitySeriesPoint(Quantity(20, "count"), start: t0, end: t0 + Authz.minute),
                                         QuantitySeriesPoint(Quantity(30, "count"), start: t0 + Authz.minute, end: t0 + 2 * Authz.minute)])
        let built = [routeBuilder.id, beatBuilder.id, stepBuilder.id]

        let file = server.dataDirectory.deletingLastPathComponent().appendingPathComponent("series.jsonl").path
        let export = try healthctl(["export", "--output", file], server: server,
                                   tokenFile: server.dataDirectory.appendingPathComponent("owner.token").path)
        XCTAssertEqual(export.status, 0, export.errors)
        // Finishing the route changed the workout, so it was read after the route; its line comes first.
        let uuids = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { line in
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["uuid"] as? String)
        }
        XCTAssertEqual(uuids.count, 4)
        XCTAssertLessThan(try XCTUnwrap(uuids.firstIndex(of: run.uuid.uuidString)), try XCTUnwrap(uuids.firstIndex(of: routeBuilder.id.uuidString)),
                          "the workout's line before its route's")
        let fresh = try ServerProcess()
        let freshTokenFile = fresh.dataDirectory.appendingPathComponent("owner.token").path
        let imported = try healthctl(["import", file, "--keep-sources", "--format", "json"], server: fresh, tokenFile: freshTokenFile)
        XCTAssertEqual(imported.status, 0, imported.errors)
        XCTAssertEqual(try healthctlSummary(imported.output)["stored"] as? Int, 4)

        let inA = stored(owner, types: [workout, route, beats, Authz.steps])
        let inB = stored(try RawClient.session(fresh, token: fresh.ownerToken), types: [workout, route, beats, Authz.steps])
        for uuid in built {
            let sample = try XCTUnwrap(inB[uuid], "built again under its UUID")
            XCTAssertEqual(sample.sourceRevision?.source.bundleID, app, "\(sample.type) built as its line's source, not as Health")
            XCTAssertEqual(sample.sourceRevision, inA[uuid]?.sourceRevision)
            XCTAssertEqual(sample.pointCount, 2)
        }
        XCTAssertEqual(inB[run.uuid]?.workout?.associatedSampleUUIDs, [routeBuilder.id], "the route is its workout's again")

        // One audit line per series built as another source, naming the owner, the series and the source.
        let audit = fresh.log.split(separator: "\n").filter { $0.contains("audit:") && $0.contains(" built ") }
        XCTAssertEqual(audit.count, 3, fresh.log)
        for uuid in built {
            XCTAssertEqual(audit.filter { $0.contains("\(uuid) keeping its source (2 points stored): \(app)") }.count, 1, "\(audit)")
        }

        let again = try healthctl(["import", file, "--keep-sources", "--format", "json"], server: fresh, tokenFile: freshTokenFile)
        XCTAssertEqual(try healthctlSummary(again.output)["already_present"] as? Int, 4)
    }

    /// The app (registered by `owner`, default device "Band") saves `everyKind()`; returns what it saved.
    private func appSavesEveryKind(_ server: ServerProcess, owner: RawClient) throws -> [Sample] {
        let samples = everyKind()
        let types = [Authz.heartRate, Authz.systolic, Authz.diastolic, Authz.activeEnergy, sleep, workout]
        let appClient = try RawClient.session(server, token: try owner.registerApp(app), device: Device(name: "Band"))
        XCTAssertEqual(appClient.call(.requestAuthorization(share: types, read: [])), .requestAuthorization)
        try owner.decide(app, types, .share, grant: true)
        try appClient.save(samples)
        return samples
    }

    /// A quantity with every metadata kind, a category, a correlation and workouts with every part.
    private func everyKind() -> [Sample] {
        let t0 = Authz.midnight
        let metadata: Metadata = ["text": .string("a \"b\""), "whole": .double(2), "fraction": .double(0.25), "int": .int(-3),
                                  "bool": .bool(false), "date": .date(t0 + 7), "mass": .quantity(Quantity(1.5, "kg"))]
        let hr = Sample(type: Authz.heartRate, start: t0, end: t0, metadata: metadata, device: Device(name: "Watch", model: "W1"),
                        body: .quantity(Quantity(72, "count/min"), count: 1))
        let night = Sample(type: sleep, start: t0, end: t0 + Authz.hour, body: .category(3))
        let pressure = Authz.bloodPressure(systolic: (UUID(), 120), diastolic: (UUID(), 80), at: 5)
        let energy = WorkoutStatistic(quantityType: Authz.activeEnergy, sum: Quantity(250, "kcal"))
        let run = Sample(type: workout, start: t0, end: t0 + Authz.hour, metadata: ["int": .int(1)],
                         body: .workout(Workout(activityType: 37, duration: 50 * Authz.minute,
                                                events: [WorkoutEvent(type: .pause, start: t0 + 10 * Authz.minute, end: t0 + 10 * Authz.minute),
                                                         WorkoutEvent(type: .resume, start: t0 + 20 * Authz.minute, end: t0 + 20 * Authz.minute)],
                                                activities: [WorkoutActivity(uuid: UUID(), activityType: 37, start: t0, end: t0 + Authz.hour,
                                                                             metadata: ["whole": .double(1)], statistics: [energy])],
                                                statistics: [energy], associatedSampleUUIDs: [hr.uuid])))
        let walk = Sample(type: workout, start: t0 + 2 * Authz.hour, end: t0 + 3 * Authz.hour, body: .workout(Workout(activityType: 52)))
        return [hr, night, pressure, run, walk]
    }

    /// Every stored sample of `types` by UUID.
    private func stored(_ client: RawClient, types: [String]) -> [UUID: Sample] {
        var all: [UUID: Sample] = [:]
        for result in client.results(.querySamples(SampleQuery(types: types, predicate: .noCorrelation))) {
            if case .samples(let page) = result { for sample in page { all[sample.uuid] = sample } }
        }
        return all
    }

    /// A sample without what the store stamps at save time (source and creation time).
    private func content(_ s: Sample) -> Sample {
        let body: SampleBody = if case .correlation(let children) = s.body { .correlation(children.map(content)) } else { s.body }
        return Sample(uuid: s.uuid, type: s.type, start: s.start, end: s.end, metadata: s.metadata, device: s.device, body: body)
    }

}

extension XCTestCase {
    /// Runs the healthctl binary built next to the server's healthd; returns its exit status, stdout and stderr.
    func healthctl(_ arguments: [String], server: ServerProcess, tokenFile: String, stdin: String? = nil) throws
        -> (status: Int32, output: String, errors: String) {
        let process = try healthctlProcess(arguments, server: server, tokenFile: tokenFile)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin { process.standardInput = FileHandle(forReadingAtPath: stdin) }
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    /// The healthctl binary built next to the server's healthd, set up to run `arguments` against it (not started).
    func healthctlProcess(_ arguments: [String], server: ServerProcess, tokenFile: String) throws -> Process {
        let process = Process()
        let healthd = try XCTUnwrap(server.process.executableURL)
        process.executableURL = healthd.deletingLastPathComponent().appendingPathComponent("healthctl")
        process.arguments = arguments + ["--unix", server.unixPath, "--token-file", tokenFile]
        return process
    }

    /// The JSON object on the last line of a healthctl command's output (its --format json summary).
    func healthctlSummary(_ output: String) throws -> [String: Any] {
        let last = output.split(separator: "\n").last.map(String.init) ?? ""
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], output)
    }
}
