import Foundation
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest
@testable import healthctl

/// Samples of every kind, with every metadata value kind and every workout part.
enum ExportFixtures {
    static let t0: Microseconds = 1_767_225_600_000_000
    static let watch = Device(name: "Watch", manufacturer: "Apple", model: "W1", hardwareVersion: "h", firmwareVersion: "f",
                              softwareVersion: "s", localIdentifier: "l", udiDeviceIdentifier: "u")
    static let metadata: Metadata = [
        "text": .string("hi \"there\"\n"), "whole double": .double(3), "double": .double(-0.1), "int": .int(-7),
        "bool": .bool(true), "date": .date(t0 + 1), "quantity": .quantity(Quantity(2.5, "kg")),
        "big int": .int(Int64.max),
    ]
    static let revision = SourceRevision(source: Source(name: "App", bundleID: "com.app"), version: "2", productType: "Watch7,1",
                                         osMajor: 10, osMinor: 2, osPatch: 1)

    static var samples: [Sample] {
        let hr = Sample(type: "HKQuantityTypeIdentifierHeartRate", start: t0, end: t0, metadata: metadata, device: watch,
                        sourceRevision: revision, creationTime: t0 + 5, body: .quantity(Quantity(72, "count/min"), count: 1))
        let sleep = Sample(type: "HKCategoryTypeIdentifierSleepAnalysis", start: t0, end: t0 + 3_600_000_000,
                           body: .category(3))
        let systolic = Sample(type: "HKQuantityTypeIdentifierBloodPressureSystolic", start: t0, end: t0, device: watch,
                              body: .quantity(Quantity(120, "mmHg"), count: 1))
        let diastolic = Sample(type: "HKQuantityTypeIdentifierBloodPressureDiastolic", start: t0, end: t0,
                               metadata: ["int": .int(1)], body: .quantity(Quantity(80.5, "mmHg"), count: 1))
        let pressure = Sample(type: "HKCorrelationTypeIdentifierBloodPressure", start: t0, end: t0, metadata: ["double": .double(1)],
                              body: .correlation([systolic, diastolic]))
        let event = WorkoutEvent(type: .pause, start: t0 + 60_000_000, end: t0 + 60_000_000, metadata: ["lap": .double(1)])
        let stat = WorkoutStatistic(quantityType: "HKQuantityTypeIdentifierActiveEnergyBurned", sum: Quantity(300, "kcal"),
                                    average: nil, minimum: Quantity(0.5, "kcal"), maximum: nil)
        let activity = WorkoutActivity(uuid: UUID(), activityType: 37, start: t0, end: t0 + 600_000_000,
                                       metadata: ["date": .date(t0)], events: [WorkoutEvent(type: .lap, start: t0, end: t0 + 1)],
                                       statistics: [stat])
        let workout = Sample(type: "HKWorkoutTypeIdentifier", start: t0, end: t0 + 1_800_000_000, metadata: metadata,
                             device: Device(name: "Phone"),
                             body: .workout(Workout(activityType: 37, duration: 1_700_000_000, events: [event],
                                                    activities: [activity], statistics: [stat],
                                                    associatedSampleUUIDs: [hr.uuid])))
        let bare = Sample(type: "HKWorkoutTypeIdentifier", start: t0, end: t0 + 1, body: .workout(Workout(activityType: 1)))
        return [hr, sleep, pressure, workout, bare]
    }

    /// Quantities (of one to four points) and categories of varied devices, sources, values and instants: the rows of an export page.
    static var plainSamples: [Sample] {
        let devices: [Device?] = [nil, watch, Device(name: "Montre de Zoé ⌚️", manufacturer: "Ärzte \"&\" Co\\"),
                                  Device(model: "tab\there"), Device(localIdentifier: "😀")]
        let revisions: [SourceRevision?] = [nil, revision, SourceRevision(source: Source(name: "健康", bundleID: "jp.健康")),
                                            SourceRevision(source: Source(name: "Imported", bundleID: "com.imp", importedTime: 9), osMajor: 17)]
        let values: [Double] = [0, -0.0, 1, -1, 0.1, -2.5, 1e-7, .leastNonzeroMagnitude, 1e20, -1.7976931348623157e308, 123_456_789.125,
                                72.38472938273, 1e16, 0.000123, 3]
        let instants: [Microseconds] = [0, -1, -62_135_596_800_000_000, -2_208_988_800_123_456, t0 + 999,
                                        253_402_300_799_999_999, 400_000_000_000_000_000]
        let quantityTypes = [("HKQuantityTypeIdentifierHeartRate", "count/min"), ("HKQuantityTypeIdentifierBodyMass", "kg"),
                             ("HKQuantityTypeIdentifierDietaryCaffeine", "µg"), ("HKQuantityTypeIdentifierStepCount", "count")]
        var samples: [Sample] = []
        for (i, value) in values.enumerated() {
            let (type, unit) = quantityTypes[i % quantityTypes.count]
            let start = instants[i % instants.count]
            samples.append(Sample(type: type, start: start, end: start + Int64(i), device: devices[i % devices.count],
                                  sourceRevision: revisions[i % revisions.count], creationTime: i % 3 == 0 ? nil : start + 7,
                                  body: .quantity(Quantity(value, unit), count: Int64(i % 4 + 1))))
            samples.append(Sample(type: "HKCategoryTypeIdentifierSleepAnalysis", start: start, end: start + 1,
                                  device: devices[(i + 1) % devices.count], sourceRevision: revisions[(i + 2) % revisions.count],
                                  creationTime: start + 7, body: .category(Int64(i) - 3)))
        }
        return samples
    }
}

final class SampleJSONRoundTripTests: XCTestCase {
    func testEveryObjectKindSurvivesAJSONLine() throws {
        for sample in ExportFixtures.samples {
            let line = SampleJSON.sample(sample).text(pretty: false)
            XCTAssertFalse(line.contains("\n"), "one line per sample")
            XCTAssertEqual(try SampleJSON.decode(line: line), sample, line)
        }
    }

    func testLinesAreWhatJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let tricky: JSON = .object(["B": .string("a/\"\\\n\r\t\u{8}\u{C}\u{1}é"), "a_b": .double(1e-7), "aB": .double(1e20),
                                    "Zed": .double(.nan), "_": .array([.bool(false), .null, .double(-2.5), .int(.min)]),
                                    "whole": .array([.double(42), .double(-3), .double(0), .double(1e15), .double(10.05)])])
        for value in ExportFixtures.samples.map({ SampleJSON.sample($0) }) + [tricky] {
            XCTAssertEqual(value.text(pretty: false), String(decoding: try encoder.encode(value), as: UTF8.self))
        }
    }

    func testExportLinesAreTheTreesTextWithSourcesAndDevicesWrittenOnce() throws {
        let plain = Sample(type: "HKQuantityTypeIdentifierStepCount", start: ExportFixtures.t0, end: ExportFixtures.t0 + 60_000_000,
                           device: ExportFixtures.watch, sourceRevision: ExportFixtures.revision, body: .quantity(Quantity(12.5, "count"), count: 3))
        // Repeated, so the second of each source and device comes from the cache.
        let samples = ExportFixtures.samples + [plain, plain] + ExportFixtures.samples
        for zone in [nil, TimeZone(identifier: "Europe/Berlin")] {
            var cache = SampleJSON.LineCache()
            var bytes = LineBuffer()
            for sample in samples { SampleJSON.writeLine(sample, zone: zone, cache: &cache, to: &bytes) }
            let expected = samples.map { SampleJSON.sample($0, zone: zone).text(pretty: false) + "\n" }.joined()
            XCTAssertEqual(String(decoding: bytes.bytes, as: UTF8.self), expected)
        }
    }

    /// A line's UUID is `uuidString`'s text, for every byte value in every place.
    func testLineUUIDsAreUUIDStringForEveryByte() throws {
        let samples = (0..<16).map { first in
            // Each place holds a different byte of the sixteen in turn.
            let bytes = (0..<16).map { UInt8(first * 16 + ($0 + first) % 16) }
            let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            return Sample(uuid: uuid, type: "HKQuantityTypeIdentifierStepCount", start: ExportFixtures.t0, end: ExportFixtures.t0 + 1,
                          body: .quantity(Quantity(1, "count"), count: 1))
        }
        var cache = SampleJSON.LineCache()
        var bytes = LineBuffer()
        for sample in samples { SampleJSON.writeLine(sample, zone: nil, cache: &cache, to: &bytes) }
        let lines = String(decoding: bytes.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, samples.map { SampleJSON.sample($0).text(pretty: false) })
        for (line, sample) in zip(lines, samples) { XCTAssertTrue(line.contains("\"uuid\":\"\(sample.uuid.uuidString)\""), line) }
    }

    /// An export page arrives as a table (plain samples as rows sharing their parts) and is written
    /// row by row: every line must be the tree's text, whatever the values.
    func testTableLinesAreTheTreesTextForVariedSamples() throws {
        var samples = ExportFixtures.plainSamples
        let route = Sample(type: TypeCatalog.workoutRouteType.identifier, start: -1, end: ExportFixtures.t0 + 999, body: .series(count: 12))
        let summary = DiscreteSeriesSummary(minimum: Quantity(60, "count/min"), maximum: Quantity(80, "count/min"),
                                            mostRecent: Quantity(70, "count/min"), mostRecentStart: 5, mostRecentEnd: 6)
        let discrete = Sample(type: "HKQuantityTypeIdentifierHeartRate", start: 0, end: 10, device: ExportFixtures.watch,
                              body: .quantity(Quantity(70, "count/min"), count: 3), discreteSeries: summary)
        samples += ExportFixtures.samples + [route, discrete] + samples
        let page = ServerMessage(callID: 1, result: .anchored(samples: SampleTable(samples), deleted: [], newAnchor: Data([1]), initial: true))
        guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage(WireCodec.encodeServerMessage(page)).result else {
            return XCTFail("not an anchored page")
        }
        XCTAssertEqual(Array(table), samples)
        // Whole: the fixtures' four with metadata or of another kind, the route and the series summary.
        XCTAssertEqual(table.wholes.count, 6, "every plain sample is a row")
        XCTAssertEqual([table.devices.count, table.revisions.count, table.units.count], [4, 3, 4], "each part read once")
        var joined = table.rows(0..<10)
        joined.append(contentsOf: table.rows(10..<table.count))
        XCTAssertEqual(Array(joined), samples)
        // One cache for every zone: the text kept from one zone's instants must not be taken for another's.
        var cache = SampleJSON.LineCache()
        for zone in [nil, TimeZone(identifier: "Europe/Berlin"), TimeZone(identifier: "America/St_Johns")] {
            let lines = SampleJSON.TableLines(table, cache: &cache)
            var bytes = LineBuffer()
            for row in table.rows { lines.writeLine(row, zone: zone, cache: &cache, to: &bytes) }
            XCTAssertEqual(bytes.bytes.last, UInt8(ascii: "\n"))
            let written = String(decoding: bytes.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            XCTAssertEqual(written.count, samples.count)
            // The decoded samples: the wire carries -0.0 as 0.
            for (line, sample) in zip(written, table) {
                XCTAssertEqual(line, SampleJSON.sample(sample, zone: zone).text(pretty: false))
            }
        }
    }

    /// An export's pages share one cache, which takes a page's device and source texts from the page
    /// before where the one at the same place is the same: pages whose devices and sources come in
    /// another order, change at a place by one field, or are fewer or more, must each be written as
    /// their own, and `writeLines` stops at each row that is not plain (left to the caller).
    func testPagesWhoseDevicesAndSourcesChangeFromPageToPageWriteTheirOwn() throws {
        func device(_ n: Int, model: String = "W1") -> Device {
            Device(name: "Watch \(n)", manufacturer: "Apple", model: model, hardwareVersion: nil, firmwareVersion: nil,
                   softwareVersion: nil, localIdentifier: "w-\(n)", udiDeviceIdentifier: nil)
        }
        func source(_ version: String) -> SourceRevision {
            SourceRevision(source: Source(name: "App", bundleID: "com.app"), version: version, productType: nil, osMajor: 1, osMinor: 0, osPatch: 0)
        }
        func page(_ devices: [Device?], _ sources: [SourceRevision?], whole: Set<Int> = []) throws -> HealthModel.SampleTable {
            let samples = devices.indices.map { i in
                Sample(type: "HKQuantityTypeIdentifierStepCount", start: ExportFixtures.t0 + Int64(i), end: ExportFixtures.t0 + Int64(i) + 1,
                       metadata: whole.contains(i) ? ["n": .int(Int64(i))] : [:], device: devices[i], sourceRevision: sources[i % sources.count],
                       body: .quantity(Quantity(Double(i) + 0.5, "count"), count: 1))
            }
            let message = ServerMessage(callID: 1, result: .anchored(samples: SampleTable(samples), deleted: [], newAnchor: Data([1]), initial: true))
            guard case .anchored(let table, _, _, _, _, _) = try WireCodec.decodeServerMessage(WireCodec.encodeServerMessage(message)).result else {
                throw HealthError(.malformed, "not an anchored page")
            }
            return table
        }
        let pages = [
            try page([device(0), device(1), device(2), nil], [source("1")]),
            // The same devices in another order, and a source changed at its place.
            try page([device(2), device(0), device(1)], [source("2")]),
            // One changed by a field at the place it had; one more; rows that are not plain between.
            try page([device(2), device(0, model: "W2"), device(1), device(3), nil], [source("2"), source("1")], whole: [1, 3]),
            // Fewer than before, then none.
            try page([device(0, model: "W2")], [source("1")]),
            try page([nil, nil], [nil]),
            try page([device(3), device(2)], [source("2")]),
        ]
        var cache = SampleJSON.LineCache()
        for table in pages {
            XCTAssertEqual(table.rows.count, table.count)
            let lines = SampleJSON.TableLines(table, cache: &cache)
            var bytes = LineBuffer()
            var next = 0
            var stops: [Int] = []
            while next < table.rows.count {
                next = lines.writeLines(from: next, while: { row in if case .whole = row.body { false } else { true } }, zone: nil,
                                        cache: &cache, to: &bytes)
                guard next < table.rows.count else { break }
                stops.append(next)
                lines.writeLine(table.rows[next], zone: nil, cache: &cache, to: &bytes)
                next += 1
            }
            XCTAssertEqual(stops, table.rows.indices.filter { if case .whole = table.rows[$0].body { true } else { false } })
            XCTAssertEqual(String(decoding: bytes.bytes, as: UTF8.self),
                           table.map { SampleJSON.sample($0).text(pretty: false) + "\n" }.joined())
        }
    }

    /// A line buffer keeps every byte written as it grows, and is written again from its start once emptied.
    func testLineBufferKeepsItsBytesAsItGrows() {
        var buffer = LineBuffer()
        var expected: [UInt8] = []
        for n in 0..<2_000 {
            let line = Array("\(n) \(String(repeating: "x", count: n % 300))\n".utf8)
            buffer.append(contentsOf: line)
            expected += line
        }
        XCTAssertEqual(buffer.bytes, expected)
        XCTAssertEqual(buffer.withBytes { Array($0) }, expected)
        buffer.removeAll()
        XCTAssertTrue(buffer.isEmpty)
        buffer.append(contentsOf: Array("again\n".utf8))
        XCTAssertEqual(buffer.bytes, Array("again\n".utf8))
    }

    func testParsingReadsBackWhatIsWrittenAndEveryEscape() throws {
        let value: JSON = .object(["B": .string("a/\"\\\n\r\t\u{8}\u{C}\u{1}é😀"), "a_b": .double(1e-7), "aB": .double(-2.5),
                                   "": .array([.bool(false), .null, .int(.min), .int(.max), .object([:]), .array([])])])
        XCTAssertEqual(try JSON.parse(value.text(pretty: false)), value)
        XCTAssertEqual(try JSON.parse(value.text(pretty: true)), value)
        XCTAssertEqual(try JSON.parse(#" ["\u00e9\ud83d\ude00\/", 1E2, 3.0, 9223372036854775808] "#),
                       .array([.string("é😀/"), .double(100), .double(3), .double(9_223_372_036_854_775_808)]))
        for bad in ["", "{", #"{"a":1,}"#, "[1] x", #""\ud83d""#, "tru", "01x", "-", #"{"a" 1}"#, "[" + String(repeating: "[", count: 100)] {
            XCTAssertThrowsError(try JSON.parse(bad), bad) { XCTAssertEqual(($0 as? HealthError)?.code, .malformed, bad) }
        }
    }

    func testIntegralDoublesStayDoublesAndIntsStayInts() throws {
        let sample = try SampleJSON.decode(line: SampleJSON.sample(ExportFixtures.samples[0]).text(pretty: false))
        XCTAssertEqual(sample.metadata["whole double"], .double(3))
        XCTAssertEqual(sample.metadata["int"], .int(-7))
        XCTAssertEqual(sample.metadata["big int"], .int(Int64.max))
    }

    func testMetadataWithoutTypesIsInferred() throws {
        var object = try XCTUnwrap(JSON.parse(SampleJSON.sample(ExportFixtures.samples[0]).text(pretty: false)))
        guard case .object(var fields) = object else { return XCTFail("not an object") }
        fields["metadata_types"] = nil
        object = .object(fields)
        let sample = try SampleJSON.decode(object, path: "")
        XCTAssertEqual(sample.metadata["text"], .string("hi \"there\"\n"))
        XCTAssertEqual(sample.metadata["date"], .date(ExportFixtures.t0 + 1))
        XCTAssertEqual(sample.metadata["quantity"], .quantity(Quantity(2.5, "kg")))
        XCTAssertEqual(sample.metadata["bool"], .bool(true))
    }

    func testUnsavedDropsOnlyTheStoreStampedFields() {
        let hr = ExportFixtures.samples[0]
        let unsaved = SampleJSON.unsaved(hr)
        XCTAssertNil(unsaved.sourceRevision)
        XCTAssertNil(unsaved.creationTime)
        XCTAssertEqual(unsaved.device, hr.device)
        XCTAssertEqual(unsaved.uuid, hr.uuid)
        XCTAssertEqual(unsaved.metadata, hr.metadata)
    }

    func testBadLinesNameTheProblem() {
        XCTAssertThrowsError(try SampleJSON.decode(line: "{not json")) { XCTAssertEqual(($0 as? HealthError)?.code, .malformed) }
        XCTAssertThrowsError(try SampleJSON.decode(line: "[1]")) { XCTAssertTrue("\($0)".contains("not a JSON object"), "\($0)") }
        let line = SampleJSON.sample(ExportFixtures.samples[1]).text(pretty: false).replacingOccurrences(of: "\"uuid\":\"", with: "\"uuid\":\"x")
        XCTAssertThrowsError(try SampleJSON.decode(line: line)) { XCTAssertEqual(($0 as? HealthError)?.field, "uuid") }
        let kind = SampleJSON.sample(ExportFixtures.samples[1]).text(pretty: false).replacingOccurrences(of: "\"category\"", with: "\"blob\"")
        XCTAssertThrowsError(try SampleJSON.decode(line: kind)) { XCTAssertTrue("\($0)".contains("'blob'"), "\($0)") }
    }
}

/// healthctl export/import against a scripted in-memory server.
final class ImportExportCommandTests: XCTestCase {
    private func run(_ words: [String], server: @escaping @Sendable (ClientCall) -> ServerResult) async throws -> (Int32, [String]) {
        let (status, output, _) = try await runCapturingErrors(words, server: server)
        return (status, output)
    }

    /// `run`, with the lines written to the error stream too.
    private func runCapturingErrors(_ words: [String], server: @escaping @Sendable (ClientCall) -> ServerResult)
        async throws -> (Int32, [String], [String]) {
        let transport = FakeTransport()
        let connection = try await HealthConnection.connect(over: transport, hello: Hello(token: "t"))
        let serving = Task {
            for await message in transport.sent {
                transport.reply(message.callID, server(message.call))
            }
        }
        defer { serving.cancel() }
        let lines = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        let status = await HealthCtl.run(words, output: { line in lines.withLock { $0.append(line) } },
                                         errors: { line in errors.withLock { $0.append(line) } }, connect: { _ in connection })
        return (status, lines.withLock { $0 }, errors.withLock { $0 })
    }

    private func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "impex-\(UUID().uuidString).jsonl"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testImportSavesInBatchesAndSkipsOnlyTheLinesTheServerRejects() async throws {
        let samples = ExportFixtures.samples
        let lines = samples.map { SampleJSON.sample($0).text(pretty: false) }
        // Line 3 does not parse; the server rejects the workout (line 5) by index.
        let path = try temporaryFile([lines[0], lines[1], "{oops", lines[2], "", lines[3], lines[4]].joined(separator: "\n") + "\n")
        let saves = Mutex<[[Sample]]>([])
        let rejected = samples[3].uuid
        let (status, output) = try await run(["import", path, "--batch", "2", "--format", "json"]) { call in
            guard case .saveObjects(let batch, _) = call else { return .error(HealthError(.malformed, "unexpected")) }
            saves.withLock { $0.append(batch) }
            if let index = batch.firstIndex(where: { $0.uuid == rejected }) {
                return .error(HealthError.invalid("no", field: "x").at(index: index))
            }
            return .saveObjects(batch.map { $0.sourceRevision == nil && $0.type.contains("Sleep") ? .alreadyStored : .stored })
        }
        XCTAssertEqual(status, 1)
        let summary = try XCTUnwrap(output.last.map(JSON.parse))
        guard case .object(let fields) = summary else { return XCTFail("summary is not an object: \(summary)") }
        XCTAssertEqual(fields.filter { ["read", "stored", "already_present", "kept_existing", "refused"].contains($0.key) },
                       ["read": .int(6), "stored": .int(3), "already_present": .int(1), "kept_existing": .int(0), "refused": .int(2)])
        guard case .object(let reasons) = fields["refused_by_reason"] else { return XCTFail("no refusals by reason") }
        XCTAssertEqual(reasons.count, 2, "the server's refusal and the unreadable line are two causes: \(reasons)")
        let sent = saves.withLock { $0 }
        // Saves go over several connections at once, so the retry and the last batch may be sent in either order.
        XCTAssertEqual(sent.map(\.count).sorted(), [1, 1, 2, 2], "batches of 2; the rejected batch is retried without its bad object")
        let rejectedAt = try XCTUnwrap(sent.firstIndex { $0.contains { $0.uuid == rejected } })
        XCTAssertEqual(sent[rejectedAt].map(\.uuid), [samples[2].uuid, rejected])
        XCTAssertTrue(sent[(rejectedAt + 1)...].contains { $0.map(\.uuid) == [samples[2].uuid] }, "retried after its refusal")
        XCTAssertEqual(sent.filter { $0.contains { $0.uuid == rejected } }.count, 1, "the bad object is not sent again")
        XCTAssertTrue(sent.joined().allSatisfy { $0.sourceRevision == nil && $0.creationTime == nil })
        XCTAssertEqual(sent.joined().first { $0.uuid == samples[0].uuid }?.device, samples[0].device)
    }

    func testAnImportSaveEndsAtItsByteBudgetSoLargeSamplesStayWithinAFrame() async throws {
        let large = String(repeating: "x", count: ImportExportCommands.importBatchBytes * 2 / 5)
        let lines = (0..<5).map { _ in
            SampleJSON.sample(Sample(type: "HKQuantityTypeIdentifierHeartRate", start: ExportFixtures.t0, end: ExportFixtures.t0,
                                     metadata: ["note": .string(large)], body: .quantity(Quantity(60, "count/min"), count: 1)))
                .text(pretty: false)
        }
        let path = try temporaryFile(lines.joined(separator: "\n") + "\n")
        let saves = Mutex<[Int]>([])
        let (status, _) = try await run(["import", path]) { call in
            guard case .saveObjects(let batch, _) = call else { return .error(HealthError(.malformed, "unexpected")) }
            saves.withLock { $0.append(batch.count) }
            return .saveObjects(batch.map { _ in .stored })
        }
        XCTAssertEqual(status, 0)
        XCTAssertEqual(saves.withLock { $0 }.sorted(by: >), [3, 2], "a save ends once its lines pass the byte budget")
    }

    func testExportReadsEveryTypeInOneAnchoredReadInAnchorOrderAndLeavesCorrelationChildrenInside() async throws {
        let (heartRate, sleep) = (ExportFixtures.samples[0], ExportFixtures.samples[1])
        let stored = [heartRate, sleep, heartRate, heartRate, sleep]
        let queries = Mutex<[AnchoredQuery]>([])
        let (status, output) = try await run(["export", "--source", "com.app"]) { call in
            switch call {
            case .queryAnchored(let query):
                queries.withLock { $0.append(query) }
                return .anchored(samples: SampleTable(stored), deleted: [], newAnchor: Data([1]), initial: true)
            default:
                return .error(HealthError(.malformed, "unexpected"))
            }
        }
        XCTAssertEqual(status, 0)
        let sent = queries.withLock { $0 }
        XCTAssertEqual(sent.map(\.types), [TypeCatalog.sampleTypes.map(\.identifier)], "one read of every type, none counted first")
        XCTAssertTrue(sent.allSatisfy { $0.anchor == nil && $0.limit == 0 && !$0.updates }, "read whole, streamed")
        XCTAssertEqual(sent[0].predicate, .allOf([.sources(["com.app"]), .noCorrelation]))
        let lines = output.flatMap { $0.split(separator: "\n") }.map(String.init)
        XCTAssertEqual(lines, stored.map { SampleJSON.sample($0).text(pretty: false) }, "in the order read")
    }

    func testAnExportThatCannotBeWrittenStopsNamingTheFileAndTheCause() async throws {
        let heartRate = ExportFixtures.samples[0]
        let (status, _, errors) = try await runCapturingErrors(["export", "--output", "/dev/full"]) { call in
            guard case .queryAnchored(let query) = call else { return .error(HealthError(.malformed, "unexpected")) }
            return .anchored(samples: SampleTable(query.types.contains(heartRate.type) ? [heartRate] : []), deleted: [],
                             newAnchor: Data([1]), initial: true)
        }
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(errors.contains { $0.contains("cannot write '/dev/full': \(String(cString: strerror(ENOSPC)))") }, "\(errors)")
    }
}
