import Foundation
import XCTest

/// A real healthd process on an ephemeral port with a temporary data directory. With
/// HEALTHSTORE_TEST_STORE set to a PostgreSQL URL, healthd stores in that database instead, in a schema
/// named in the data directory (so a restart on the same directory, or a node started from a copy of
/// it, finds the same data).
final class ServerProcess {
    let process = Process()
    let dataDirectory: URL
    let unixPath: String
    let logFile: URL
    private(set) var port: UInt16 = 0
    /// The HTTP listener's port; 0 when it is off.
    private(set) var httpPort: UInt16 = 0

    /// Starts healthd and waits for its ready line.
    init(extraArguments: [String] = [], dataDirectory: URL? = nil) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("healthd-test-\(UUID().uuidString.prefix(8))")
        self.dataDirectory = dataDirectory ?? base.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        unixPath = base.appendingPathComponent("s.sock").path
        logFile = base.appendingPathComponent("healthd.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = try Self.binary()
        // An ephemeral HTTP port unless the test chooses: servers of tests running together must not collide.
        let http = extraArguments.contains("--http") ? [] : ["--http", "127.0.0.1:0"]
        process.arguments = ["--listen", "127.0.0.1:0", "--unix", unixPath, "--data", self.dataDirectory.path,
                             "--threads", "2"] + http
            + (extraArguments.contains("--store") ? [] : try Self.storeArguments(dataDirectory: self.dataDirectory)) + extraArguments
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let port = readyPort() {
                self.port = port
                httpPort = readyPort(after: "http 127.0.0.1:") ?? readyPort(after: "https 127.0.0.1:") ?? 0
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stopNow()
        throw TestFailure("healthd did not become ready; log:\n\(log)")
    }

    deinit { stopNow() }

    /// True when healthd runs on HEALTHSTORE_TEST_STORE: nodes started from copies of one data
    /// directory then share one store instead of each having its own copy.
    static var sharesTestStore: Bool { !(ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_STORE"] ?? "").isEmpty }

    /// `--store` for HEALTHSTORE_TEST_STORE (unless the test names its own store), with the schema
    /// recorded in the data directory's `test-store-schema`, made up on first use.
    static func storeArguments(dataDirectory: URL) throws -> [String] {
        guard let url = ProcessInfo.processInfo.environment["HEALTHSTORE_TEST_STORE"], !url.isEmpty else { return [] }
        guard url.hasPrefix("postgres") else { return ["--store", url] }
        let file = dataDirectory.appendingPathComponent("test-store-schema")
        var schema = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if schema.isEmpty {
            schema = "hs_server_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            try schema.write(to: file, atomically: true, encoding: .utf8)
        }
        return ["--store", url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema]
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    var ownerToken: String { token("owner.token") }
    var operatorToken: String { token("operator.token") }

    private func token(_ name: String) -> String {
        ((try? String(contentsOf: dataDirectory.appendingPathComponent(name), encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stopNow() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The port after `listener` (e.g. "http 127.0.0.1:") in the ready line.
    private func readyPort(after listener: String = "tcp 127.0.0.1:") -> UInt16? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("ready: listening on tcp 127.0.0.1:") }),
              let range = line.range(of: listener) else { return nil }
        return UInt16(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// An executable of the package next to the test bundle (both live in the build's bin
    /// directory); healthd may come from $HEALTHD_PATH instead.
    /// Runs one of the package's executables to its end; its exit status and what it wrote to
    /// stderr and stdout.
    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, errors: String, output: String) {
        let process = Process()
        process.executableURL = try binary(name)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        // A file, not a second pipe: a full pipe nobody reads would block the process.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString.prefix(8)).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    static func binary(_ name: String = "healthd") throws -> URL {
        if name == "healthd", let path = ProcessInfo.processInfo.environment["HEALTHD_PATH"] { return URL(fileURLWithPath: path) }
        // On Linux the .xctest is an executable in the bin directory; on macOS a bundle inside it.
        for start in [Bundle.main.executableURL, Bundle(for: ServerProcess.self).bundleURL].compactMap({ $0 }) {
            var directory = start
            for _ in 0..<4 {
                directory.deleteLastPathComponent()
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        throw TestFailure("\(name) binary not found next to the test bundle; run `swift build --product \(name)` first")
    }
}

/// A test setup failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
