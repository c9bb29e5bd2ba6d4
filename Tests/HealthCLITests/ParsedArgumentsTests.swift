import Testing
@testable import HealthCLI

private let options: [OptionSpec] = [
    .value("duration", "DURATION", "how long"),
    .value("server", "ADDRESS", "where", environment: "HEALTHSTORE_SERVER"),
    .value("type", "TYPE", "repeatable type"),
    .flag("approve", "grant"),
]

@Suite struct ParsedArgumentsTests {
    @Test func bothValueSyntaxesAndFlags() throws {
        let args = try ParsedArguments(["--duration", "10s", "--type=HeartRate", "--type", "StepCount", "--approve", "pos"],
                                       options: options)
        #expect(args.value("duration") == "10s")
        #expect(args.list("type") == ["HeartRate", "StepCount"])
        #expect(args.has("approve"))
        #expect(args.positionals == ["pos"])
    }

    @Test func unknownOptionSuggestsTheNearest() {
        #expect(throws: UsageError("unknown option --duratoin; did you mean --duration?", option: "duratoin")) {
            try ParsedArguments(["--duratoin", "1"], options: options)
        }
        #expect(throws: UsageError("unknown option '-x' (see --help)", option: "x")) {
            try ParsedArguments(["-x"], options: options)
        }
    }

    @Test func missingValueAndValueOnFlag() {
        #expect(throws: UsageError("--duration needs a value (DURATION)", option: "duration")) {
            try ParsedArguments(["--duration"], options: options)
        }
        #expect(throws: UsageError("--duration needs a value (DURATION)", option: "duration")) {
            try ParsedArguments(["--duration", "--approve"], options: options)
        }
        #expect(throws: UsageError("--approve takes no value", option: "approve")) {
            try ParsedArguments(["--approve=yes"], options: options)
        }
    }

    @Test func negativeOffsetsAndNumbersArePositionalsOrValues() throws {
        let args = try ParsedArguments(["-1h", "-5", "--duration", "-1d"], options: options)
        #expect(args.positionals == ["-1h", "-5"])
        #expect(args.value("duration") == "-1d")
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheConfigFile() throws {
        let env = ["HEALTHSTORE_SERVER": "10.0.0.1:1"]
        let fromEnv = try ParsedArguments([], options: options, environment: env, fallback: ["server": "file:1"])
        #expect(fromEnv.value("server") == "10.0.0.1:1")
        let fromFlag = try ParsedArguments(["--server", "h:2"], options: options, environment: env)
        #expect(fromFlag.value("server") == "h:2")
        let fromFile = try ParsedArguments([], options: options, fallback: ["server": "file:1"])
        #expect(fromFile.value("server") == "file:1")
    }

    @Test func parseNamesTheOptionInValueErrors() throws {
        let args = try ParsedArguments(["--duration", "10x"], options: options)
        #expect(throws: UsageError("--duration: '10x' is not a duration (use e.g. 500ms, 10s, 5m, 2h, 1d)", option: "duration")) {
            try args.parse("duration", Values.duration)
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let args = try ParsedArguments(["--", "--approve"], options: options)
        #expect(args.positionals == ["--approve"])
        #expect(!args.has("approve"))
    }
}

@Suite struct ValuesTests {
    @Test func durations() throws {
        #expect(try Values.duration("10") == 10)
        #expect(try Values.duration("10s") == 10)
        #expect(try Values.duration("250ms") == 0.25)
        #expect(try Values.duration("5m") == 300)
        #expect(try Values.duration("1h30m") == 5400)
        #expect(try Values.duration("1d") == 86_400)
        #expect(throws: UsageError.self) { try Values.duration("") }
        #expect(throws: UsageError.self) { try Values.duration("1x") }
        #expect(throws: UsageError("90s is outside 1s…1m".replacingOccurrences(of: "1m", with: "60s"))) {
            try Values.duration("90s", in: 1...60)
        }
    }

    @Test func sizesCountsChoicesAddresses() throws {
        #expect(try Values.size("64KiB") == 65_536)
        #expect(try Values.size("4MiB") == 4 << 20)
        #expect(throws: UsageError.self) { try Values.size("99999999999999GiB") }
        #expect(try Values.integer("1_000", in: 1...2000) == 1000)
        #expect(throws: UsageError("0 is outside 1…5")) { try Values.integer("0", in: 1...5) }
        #expect(throws: UsageError("'allow' is not one of prompt, allow-all, deny-all; did you mean allow-all?")) {
            try Values.choice("allow", ["prompt", "allow-all", "deny-all"])
        }
        #expect(try Values.hostPort("[::1]:7420") == ("::1", 7420))
        #expect(try Values.hostPort(":7420") == ("127.0.0.1", 7420))
        #expect(throws: UsageError.self) { try Values.hostPort("localhost") }
        #expect(try Values.hostPort("h:0", allowEphemeral: true).port == 0)
    }
}

@Suite struct HelpTextTests {
    @Test func neverTruncatesLongSynopsesOrHelp() {
        let long = OptionSpec.value("observer-ack-timeout-with-a-very-long-name", "SECONDS",
                                    String(repeating: "word ", count: 40) + "END")
        let text = HelpText(usage: ["tool [options]"], summary: "Does things.", options: [long, .flag("share", "s")],
                            width: 60).rendered
        #expect(text.contains("--observer-ack-timeout-with-a-very-long-name SECONDS"))
        #expect(text.contains("END"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 60 || !$0.contains(" ") })
    }
}
