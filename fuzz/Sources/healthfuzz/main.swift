// healthfuzz: a seeded, deterministic mutation fuzzer over everything healthd does with received
// bytes (see fuzz/README.md). Input i of seed s is a pure function of (s, i), so a run can resume
// after a crash at i + 1 and any input can be regenerated. Run it through scripts/fuzz.
import Foundation
import HealthModel
import HealthWire

let usage = """
usage: healthfuzz [--seed S] [--start I] [--iterations N] [--current FILE] [--progress-every N] [--exclude-kinds K,K…]
                  [--server HOST:PORT --token-file FILE [--connections C] [--batch B]]
       healthfuzz --replay FILE...      run saved inputs (frame bytes) in-process and report each
       healthfuzz --describe FILE...    print the messages a saved input decodes to, without running them
       healthfuzz --emit I --seed S --out FILE   write input I of seed S to FILE
       healthfuzz --check-seeds yes     run the unmutated seeds: every call should be accepted
"""

struct Arguments {
    private var values: [String: String] = [:]
    private(set) var replay: [String] = []
    private(set) var describeOnly = false

    init(_ words: [String]) {
        var rest = words[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else { fail("unexpected argument '\(word)'") }
            if word == "--replay" || word == "--describe" {
                replay = Array(rest)
                describeOnly = word == "--describe"
                return
            }
            guard let value = rest.popFirst() else { fail("\(word) needs a value") }
            values[String(word.dropFirst(2))] = value
        }
    }

    subscript(name: String) -> String? { values[name] }

    func number(_ name: String, _ fallback: UInt64) -> UInt64 {
        guard let text = values[name] else { return fallback }
        guard let value = UInt64(text.replacingOccurrences(of: "_", with: "")) else { fail("--\(name) needs a number, got '\(text)'") }
        return value
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("healthfuzz: \(message)\n\(usage)\n".utf8))
    exit(64)
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
let seed = arguments.number("seed", 1)
let start = arguments.number("start", 0)
let iterations = arguments.number("iterations", 1_000_000)
let progressEvery = max(1, arguments.number("progress-every", 100_000))
let recorder = arguments["current"].map(InputRecorder.init(path:))
let token = try arguments["token-file"].map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
// Leaving out the seeds of a call kind with a known crash lets a run get past it (a mutation may
// still turn another seed into that kind, rarely).
let excluded = Set((arguments["exclude-kinds"] ?? "").split(separator: ",").map(String.init))
let mutator = Mutator(seeds: Seeds.payloads(token: token ?? "fuzz-token", excluding: excluded))
let began = Date()
var tally = Tally()

func report(_ done: UInt64, _ tally: Tally) {
    guard done % progressEvery == 0 || done == iterations else { return }
    let seconds = Date().timeIntervalSince(began)
    let line = String(format: "progress %llu/%llu inputs  %.0f inputs/s  accepted %d\n", done, iterations,
                      Double(done) / max(seconds, 0.001), tally.acceptedTotal)
    FileHandle.standardOutput.write(Data(line.utf8))
}

if !arguments.replay.isEmpty {
    for path in arguments.replay {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        if arguments.describeOnly {
            print("\(path):\n\(ServerPath.describe(Array(data)))")
            continue
        }
        var one = Tally()
        one.inputs = 1
        ServerPath.run(Array(data), tally: &one)
        print("\(path): survived\n\(one.summary(top: 5))")
    }
} else if arguments["check-seeds"] != nil {
    for payload in mutator.seeds {
        ServerPath.run(withUnsafeBytes(of: UInt32(payload.count).bigEndian, Array.init) + payload, tally: &tally)
    }
    tally.inputs = mutator.seeds.count
    print(tally.summary())
} else if let out = arguments["out"] {
    let input = mutator.input(seed: seed, iteration: arguments.number("emit", 0))
    guard FileManager.default.createFile(atPath: out, contents: Data(input)) else { fail("cannot write \(out)") }
} else if let address = arguments["server"] {
    guard let token else { fail("--server needs --token-file") }
    guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else {
        fail("--server needs HOST:PORT, got '\(address)'")
    }
    let server = LiveServer(host: String(address[..<colon]), port: port, token: token,
                            connections: Int(arguments.number("connections", 4)), batch: Int(max(1, arguments.number("batch", 50))))
    do throws(LiveServer.Failure) {
        try server.run(mutator: mutator, seed: seed, start: start, iterations: iterations, recorder: recorder, tally: &tally,
                       progress: report)
    } catch {
        print("FAILURE after \(tally.inputs) inputs (seed \(seed)): \(error)")
        print(tally.summary())
        exit(2)
    }
    print("summary (live server, seed \(seed), inputs \(start)..<\(start + iterations)):\n\(tally.summary())")
} else {
    for iteration in start..<start + iterations {
        let input = mutator.input(seed: seed, iteration: iteration)
        recorder?.record(input, iteration: iteration)
        tally.inputs += 1
        ServerPath.run(input, tally: &tally)
        report(iteration - start + 1, tally)
    }
    print("summary (in-process, seed \(seed), inputs \(start)..<\(start + iterations)):\n\(tally.summary())")
}
