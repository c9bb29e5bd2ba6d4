import Foundation
import HealthCLI
import HealthClient
import HealthModel
import HealthWire
import Synchronization
import XCTest
@testable import healthctl

/// A command line parsed the way healthctl parses a command's options.
private func Arguments(_ words: [String], valued: Set<String>, flags: Set<String>) throws -> ParsedArguments {
    try ParsedArguments(words, options: valued.map { OptionSpec.value($0, "V", "") } + flags.map { OptionSpec.flag($0, "") })
}

final class ArgumentsTests: XCTestCase {
    func testOptionsFlagsAndPositionals() throws {
        let args = try Arguments(["com.a", "--type", "HeartRate", "--type=StepCount,BodyMass", "--all", "--limit", "5"],
                                 valued: ["type", "limit"], flags: ["all"])
        XCTAssertEqual(args.positionals, ["com.a"])
        XCTAssertEqual(args.list("type"), ["HeartRate", "StepCount", "BodyMass"])
        XCTAssertEqual(args.value("limit"), "5")
        XCTAssertTrue(args.has("all"))
        XCTAssertFalse(args.has("share"))
    }

    func testUnknownOptionSuggestsTheNearest() {
        XCTAssertThrowsError(try Arguments(["--tpye", "x"], valued: ["type"], flags: [])) { error in
            XCTAssertTrue("\(error)".contains("did you mean --type"), "\(error)")
        }
    }

    func testMissingValueAndFlagWithValueAreErrors() {
        XCTAssertThrowsError(try Arguments(["--type"], valued: ["type"], flags: []))
        XCTAssertThrowsError(try Arguments(["--all=1"], valued: [], flags: ["all"]))
    }

    func testCommandLookupPrefersTheLongestMatch() throws {
        let (command, rest) = try XCTUnwrap(HealthCtl.find(["sources", "priority", "--type", "StepCount"]))
        XCTAssertEqual(command.words, ["sources", "priority"])
        XCTAssertEqual(rest, ["--type", "StepCount"])
        XCTAssertEqual(HealthCtl.find(["sources", "--type", "x"])?.0.words, ["sources"])
        XCTAssertNil(HealthCtl.find(["nonsense"]))
    }

    func testGlobalOptionsMayComeBeforeTheCommand() throws {
        let words = HealthCtl.globalOptionsLast(["--server", "h:1", "--format", "json", "samples", "--type", "x"])
        XCTAssertEqual(words, ["samples", "--type", "x", "--server", "h:1", "--format", "json"])
        XCTAssertEqual(HealthCtl.find(words)?.0.words, ["samples"])
        XCTAssertEqual(HealthCtl.globalOptionsLast(["apps", "list"]), ["apps", "list"])
        XCTAssertEqual(HealthCtl.globalOptionsLast(["--tls", "--ca", "ca.pem", "apps", "list"]), ["apps", "list", "--tls", "--ca", "ca.pem"])
        XCTAssertEqual(HealthCtl.globalOptionsLast(["--server=h:1", "apps", "list"]), ["apps", "list", "--server=h:1"])
    }

    /// Every tool's contract: a usage error is one plain line naming the option (plus a pointer to
    /// --help), exit status 2, and nothing is connected to.
    func testUsageErrorsAreOnePlainLineWithStatusTwo() async {
        let errors = Mutex<[String]>([])
        let status = await HealthCtl.run(["stats", "--type", "StepCount", "--interval", "1x"], output: { _ in },
                                         errors: { line in errors.withLock { $0.append(line) } },
                                         connect: { _ in XCTFail("no connection for a usage error"); throw CancellationError() })
        XCTAssertEqual(status, 2)
        let text = errors.withLock { $0.joined(separator: "\n") }
        XCTAssertEqual(text, "healthctl stats: --interval: '1x' is not an interval: use a count and unit like 1d, 6h, 15m, 1w, 1mo, 1y\n"
            + "run 'healthctl stats --help' for the options")
        XCTAssertFalse(text.contains("INVALID_ARGUMENT"))
    }

    func testServerAddressesFromTheEnvironmentAndUnixSockets() throws {
        let args = try ParsedArguments([], options: GlobalOptions.specs, environment: ["HEALTHSTORE_SERVER": "unix:/run/h.sock, 10.0.0.2:7420"])
        XCTAssertEqual(try Invocation.endpoints(args), [.unix(path: "/run/h.sock"), .tcp(host: "10.0.0.2", port: 7420)])
        let flag = try ParsedArguments(["--server", "h:1"], options: GlobalOptions.specs, environment: ["HEALTHSTORE_SERVER": "x:2"])
        XCTAssertEqual(try Invocation.endpoints(flag), [.tcp(host: "h", port: 1)])
        let bad = try ParsedArguments(["--server", "nowhere"], options: GlobalOptions.specs)
        XCTAssertThrowsError(try Invocation.endpoints(bad)) { error in
            XCTAssertTrue((error as? UsageError)?.message.hasPrefix("--server: ") == true, "\(error)")
        }
    }

    func testHelpNeverCutsAnOptionOrAUsage() throws {
        for command in HealthCtl.commands {
            for spec in command.specs { XCTAssertTrue(command.help.contains("--\(spec.name)"), "\(command.words) --\(spec.name)") }
            XCTAssertTrue(HealthCtl.overview.contains(command.usage), command.usage)
        }
    }

    func testAGroupWordListsItsSubcommands() throws {
        let help = try XCTUnwrap(HealthCtl.groupHelp("apps"))
        for sub in ["apps add", "apps list", "apps revoke", "apps rotate"] { XCTAssertTrue(help.contains(sub), sub) }
        XCTAssertNil(HealthCtl.groupHelp("samples"))
    }

    func testUnknownTypeSuggestsAName() {
        XCTAssertEqual(try TypeCatalog.resolve("heart-rate").identifier, "HKQuantityTypeIdentifierHeartRate")
        XCTAssertThrowsError(try TypeCatalog.resolve("HartRate")) { error in
            XCTAssertTrue("\(error)".contains("did you mean \"HeartRate\""), "\(error)")
        }
    }

    func testSampleQueryFromTheCommandLine() throws {
        let parser = TimeParser(now: 1_000 * TimeParser.day)
        let args = try Arguments(["--type", "steps-count", "--since", "-1d", "--source", "com.watch", "--limit", "10"],
                                 valued: ["type", "since", "until", "source", "limit"], flags: [])
        XCTAssertThrowsError(try BrowseCommands.sampleQuery(args, parser: parser), "StepsCount is not a type")
        let good = try Arguments(["--type", "step-count", "--since", "-1d", "--source", "com.watch", "--limit", "10"],
                                 valued: ["type", "since", "until", "source", "limit"], flags: [])
        let query = try BrowseCommands.sampleQuery(good, parser: parser)
        XCTAssertEqual(query.types, ["HKQuantityTypeIdentifierStepCount"])
        XCTAssertEqual(query.limit, 10)
        XCTAssertEqual(query.predicate, .allOf([.dateRange(DateRange(start: 999 * TimeParser.day, end: nil)), .sources(["com.watch"])]))
    }

    func testAuthorizationDecisions() throws {
        let args = try Arguments(["--type", "HeartRate", "--read"], valued: ["type"], flags: ["all", "share", "read"])
        XCTAssertEqual(try AuthzCommands.decisions(args, pending: [], grant: true),
                       [AuthorizationDecision(type: "HKQuantityTypeIdentifierHeartRate", direction: .read, grant: true)])
        let app = Source(name: "A", bundleID: "com.a")
        let pending = [AuthorizationRequest(app: app, type: "t1", direction: .share, requestedTime: 0),
                       AuthorizationRequest(app: app, type: "t2", direction: .read, requestedTime: 0)]
        let all = try Arguments(["--all", "--share"], valued: ["type"], flags: ["all", "share", "read"])
        XCTAssertEqual(try AuthzCommands.decisions(all, pending: pending, grant: false),
                       [AuthorizationDecision(type: "t1", direction: .share, grant: false)])
        let neither = try Arguments([], valued: ["type"], flags: ["all", "share", "read"])
        XCTAssertThrowsError(try AuthzCommands.decisions(neither, pending: pending, grant: true))
    }

    func testCharacteristicsUpdate() throws {
        let args = try Arguments(["--set-sex", "Female", "--set-birth", "1990-02-03", "--set-skin", "4"],
                                 valued: ["set-sex", "set-birth", "set-skin", "set-blood-type", "set-wheelchair", "set-move-mode"], flags: [])
        XCTAssertEqual(try CharacteristicsCommand.update(args),
                       Characteristics(biologicalSex: 1, dateOfBirth: CalendarDay(year: 1990, month: 2, day: 3), fitzpatrickSkinType: 4))
    }
}

final class TimeParsingTests: XCTestCase {
    let utc = TimeParser(now: 1_775_000_000_000_000)

    func testISOInstantsAndDays() throws {
        XCTAssertEqual(try utc.instant("2026-03-29T10:15:00Z", field: "t"), 1_774_779_300_000_000)
        XCTAssertEqual(try utc.instant("2026-03-29T12:15:00+02:00", field: "t"), 1_774_779_300_000_000)
        XCTAssertEqual(try utc.instant("2026-03-29T10:15:00.25Z", field: "t"), 1_774_779_300_250_000)
        XCTAssertEqual(try utc.instant("2026-03-29", field: "t"), 1_774_742_400_000_000)
        let berlin = TimeParser(timeZone: try TimeParser.zone("Europe/Berlin"), now: 0)
        // Midnight in Berlin on the DST-change day is still CET (+01:00).
        XCTAssertEqual(try berlin.instant("2026-03-29", field: "t"), 1_774_742_400_000_000 - 3_600_000_000)
    }

    func testRelativeAndNamedTimes() throws {
        XCTAssertEqual(try utc.instant("now", field: "t"), utc.now)
        XCTAssertEqual(try utc.instant("-1d", field: "t"), utc.now - TimeParser.day)
        XCTAssertEqual(try utc.instant("-90m", field: "t"), utc.now - 90 * 60_000_000)
        XCTAssertEqual(try utc.instant("+2h", field: "t"), utc.now + 2 * 3_600_000_000)
        XCTAssertEqual(try utc.instant("today", field: "t") % TimeParser.day, 0)
        XCTAssertEqual(try utc.day("2026-03-29", field: "d"), CalendarDay(year: 2026, month: 3, day: 29))
    }

    func testBadTimesNameTheField() {
        XCTAssertThrowsError(try utc.instant("yesterdayish", field: "since")) { error in
            XCTAssertEqual((error as? UsageError)?.option, "since")
        }
        XCTAssertThrowsError(try utc.instant("2026-13-01", field: "since"))
        XCTAssertThrowsError(try TimeParser.zone("Mars/Olympus"))
    }

    func testIntervals() throws {
        XCTAssertEqual(try TimeParser.interval("1d"), IntervalComponents(days: 1))
        XCTAssertEqual(try TimeParser.interval("15m"), IntervalComponents(minutes: 15))
        XCTAssertEqual(try TimeParser.interval("1mo"), IntervalComponents(months: 1))
        XCTAssertThrowsError(try TimeParser.interval("0d"))
        XCTAssertThrowsError(try TimeParser.interval("day"))
    }
}

final class OutputFormattingTests: XCTestCase {
    func testTableAlignsColumnsAndRightAlignsNumbers() {
        let table = Table(columns: ["NAME", "COUNT"], rows: [["steps", "5"], ["heart rate", "120"]])
        XCTAssertEqual(table.text(), """
            NAME        COUNT
            ----------  -----
            steps           5
            heart rate    120
            """)
    }

    func testCSVQuotesWhatNeedsIt() {
        let table = Table(columns: ["A", "B"], rows: [["x,y", "say \"hi\""], ["plain", ""]])
        XCTAssertEqual(table.csv(), "A,B\n\"x,y\",\"say \"\"hi\"\"\"\nplain,")
    }

    func testSampleJSONHasTheDocumentedFields() throws {
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let sample = Sample(uuid: uuid, type: "HKQuantityTypeIdentifierHeartRate", start: 1_000_000, end: 2_000_000,
                            metadata: ["HKWasUserEntered": .bool(true)], device: Device(name: "Watch", model: "W1"),
                            sourceRevision: SourceRevision(source: Source(name: "App", bundleID: "com.app"), version: "2"),
                            creationTime: 3, body: .quantity(Quantity(72, "count/min"), count: 1))
        let text = SampleJSON.sample(sample).text()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["uuid"] as? String, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        XCTAssertEqual(object["kind"] as? String, "quantity")
        XCTAssertEqual(object["start"] as? String, "1970-01-01T00:00:01.000Z")
        XCTAssertEqual(object["end_micros"] as? Int, 2_000_000)
        XCTAssertEqual(object["value"] as? Double, 72)
        XCTAssertEqual(object["unit"] as? String, "count/min")
        XCTAssertEqual((object["source"] as? [String: Any])?["bundle_id"] as? String, "com.app")
        XCTAssertEqual((object["device"] as? [String: Any])?["model"] as? String, "W1")
        XCTAssertEqual((object["metadata"] as? [String: Any])?["HKWasUserEntered"] as? Bool, true)
        // Stable: the same sample always prints the same bytes, keys sorted.
        XCTAssertEqual(text, SampleJSON.sample(sample).text())
        XCTAssertTrue(text.range(of: "\"creation_micros\"")!.lowerBound < text.range(of: "\"uuid\"")!.lowerBound)
    }

    func testReportFormats() {
        let report = Report(table: Table(columns: ["OWNER"], rows: [["ann"]]))
        XCTAssertEqual(report.render(.csv), "OWNER\nann")
        XCTAssertTrue(report.render(.json).contains("\"owner\" : \"ann\""))
        XCTAssertEqual(Report(table: Table(columns: ["OWNER"], rows: [])).render(.table), "(none)")
    }

    func testCharts() {
        XCTAssertEqual(Chart.sparkline([0, 7, nil, 3.5]), "▁█ ▅")
        XCTAssertEqual(Chart.bars([("a", 2), ("bb", 1)], width: 4), ["a  │████ 2", "bb │██ 1"])
    }

    func testStatisticsReportShowsRequestedColumns() {
        let buckets = [Statistics(type: "t", start: 0, end: 10, sum: Quantity(5, "count")),
                       Statistics(type: "t", start: 10, end: 20)]
        let report = StatisticsReport.make(buckets, chart: false)
        XCTAssertEqual(report.table.columns, ["START", "END", "SUM", "UNIT"])
        XCTAssertEqual(report.table.rows.map { $0[2] }, ["5", ""])
    }

    func testJSONRowsCarryNumbersAsNumbers() {
        let report = Report(table: Table(columns: ["TYPE", "SAMPLES", "MEAN"], rows: [["HeartRate", "23065", "61.5"], ["Steps", "2", ""]]))
        let text = report.render(.json)
        XCTAssertTrue(text.contains("\"samples\" : 23065"), text)
        XCTAssertTrue(text.contains("\"mean\" : 61.5"), text)
        XCTAssertTrue(text.contains("\"mean\" : null"), text)
        XCTAssertTrue(text.contains("\"type\" : \"HeartRate\""), text)
    }

    func testTimeZoneAppliesToEveryPrintedTime() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let noon = Int64(1_767_268_800_000_000)  // 2026-01-01T12:00:00Z
        let buckets = [Statistics(type: "t", start: noon, end: noon + 3_600_000_000, sum: Quantity(5, "count"))]
        let report = StatisticsReport.make(buckets, chart: true, zone: berlin)
        XCTAssertEqual(report.table.rows[0][0], "2026-01-01T13:00:00.000+01:00")
        XCTAssertTrue(report.render(.json).contains("2026-01-01T14:00:00.000+01:00"))
        XCTAssertTrue(report.footer.contains { $0.hasPrefix("2026-01-01T13:00") }, "chart labels too: \(report.footer)")
        let sample = Sample(type: "HKQuantityTypeIdentifierHeartRate", start: noon, end: noon,
                            body: .quantity(Quantity(60, "count/min"), count: 1))
        XCTAssertEqual(SampleTable.row(sample, zone: berlin)[0], "2026-01-01T13:00:00.000+01:00")
        XCTAssertEqual(SampleTable.row(sample)[0], "2026-01-01T12:00:00.000Z")
    }

    func testCorrelationRowsShowTheirReadingsUnit() {
        let reading = { (type: String, value: Double) in
            Sample(type: type, start: 0, end: 0, body: .quantity(Quantity(value, "mmHg"), count: 1))
        }
        let pressure = Sample(type: "HKCorrelationTypeIdentifierBloodPressure", start: 0, end: 0,
                              body: .correlation([reading("HKQuantityTypeIdentifierBloodPressureSystolic", 120),
                                                  reading("HKQuantityTypeIdentifierBloodPressureDiastolic", 80)]))
        let row = SampleTable.row(pressure)
        XCTAssertEqual(Array(row[3...4]), ["120/80", "mmHg"])
    }
}
