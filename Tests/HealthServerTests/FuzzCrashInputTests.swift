import Foundation
import HealthModel
import HealthWire
import XCTest

/// Every input the fuzzer (scripts/fuzz) ever crashed on stays a test: sent as the owner after a
/// valid Hello, it gets answers (errors, never a crash) and the server still answers a Ping after it.
final class FuzzCrashInputTests: XCTestCase {
    private var crashDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fuzz/crashes")
    }

    func testEveryRecordedCrashInputIsAnsweredAndTheServerKeepsServing() throws {
        let inputs = try FileManager.default.contentsOfDirectory(at: crashDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "bin" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        XCTAssertFalse(inputs.isEmpty, "fuzz/crashes holds the fuzzer's crash inputs")
        let server = try ServerProcess()
        for input in inputs {
            let client = try RawClient(port: server.port)
            client.setTimeout(seconds: 10)
            XCTAssertEqual(client.hello(server.ownerToken).map { if case .hello = $0 { true } else { false } }, true)
            client.sendRaw(Array(try Data(contentsOf: input)))
            // The frames may close this connection (an undecodable one does); a fresh one must work.
            let probe = try RawClient(port: server.port)
            probe.setTimeout(seconds: 10)
            probe.hello(server.ownerToken)
            guard case .pong? = probe.call(.ping(Data("after \(input.lastPathComponent)".utf8))) else {
                return XCTFail("no Pong after \(input.lastPathComponent): the server died on it")
            }
        }
        XCTAssertTrue(server.process.isRunning)
    }
}
