import Foundation
import HealthClient
import HealthModel
import HealthWire
import XCTest

/// Framing under pressure: many HealthClient connections, each with several tasks pipelining large
/// SaveObjects at once, and frames arriving one byte per read. Every batch must be stored and none
/// refused as malformed. Small by default; the heavy run (what ruled the transport out as the cause
/// of the load run's MALFORMED rejections) is
///   HEALTHD_PATH=<release healthd> STRESS_CONNECTIONS=1000 STRESS_BATCH=500 swift test --filter PipelinedSaveStressTests
final class PipelinedSaveStressTests: XCTestCase {
    private static func setting(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    func testConcurrentPipelinedSavesAreAllStored() async throws {
        let connections = Self.setting("STRESS_CONNECTIONS", 12)
        let tasksPerConnection = Self.setting("STRESS_TASKS", 4)
        let batchesPerTask = Self.setting("STRESS_BATCHES", 3)
        let batchSize = Self.setting("STRESS_BATCH", 300)
        let server = try ServerProcess(extraArguments: ["--max-connections", "\(connections + 16)"])
        let hello = Hello(token: server.ownerToken)
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: server.port)
        var opened: [HealthConnection] = []
        for _ in 0..<connections { opened.append(try await HealthConnection.connect(to: endpoint, hello: hello)) }
        let links = opened

        let stored = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, connection) in links.enumerated() {
                for task in 0..<tasksPerConnection {
                    group.addTask {
                        var count = 0
                        for batch in 0..<batchesPerTask {
                            let samples = (0..<batchSize).map { i in
                                Fixtures.heartRateSample(Double(40 + (index + task + batch + i) % 120), minutesAgo: 1 + i % 600)
                            }
                            let outcomes = try await connection.save(samples)
                            count += outcomes.filter { $0 == .stored }.count
                        }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        for connection in links { connection.close() }
        XCTAssertEqual(stored, connections * tasksPerConnection * batchesPerTask * batchSize)
        XCTAssertFalse(server.log.contains("protocol error"), "server log:\n\(server.log.suffix(2000))")
    }

    func testFramesSplitAtEveryByteAreReassembled() throws {
        let server = try ServerProcess()
        let client = try RawClient(port: server.port)
        var stream = WireCodec.encodeClientFrame(ClientMessage(callID: 1, call: .hello(Hello(token: server.ownerToken))))
        let batches = (0..<3).map { batch in (0..<40).map { Fixtures.heartRateSample(Double(50 + batch + $0), minutesAgo: 1 + $0) } }
        for (index, batch) in batches.enumerated() {
            stream += WireCodec.encodeClientFrame(ClientMessage(callID: UInt64(10 + index), call: .saveObjects(batch)))
        }
        // TCP_NODELAY and one send per byte: the server sees the frames in many small reads.
        var one: Int32 = 1
        setsockopt(client.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        for byte in stream { client.sendRaw([byte]) }
        guard case .hello? = client.receive(callID: 1)?.result else { return XCTFail("no Hello answer; log:\n\(server.log)") }
        for (index, batch) in batches.enumerated() {
            let answer = client.receive(callID: UInt64(10 + index))?.result
            XCTAssertEqual(answer, .saveObjects(Array(repeating: .stored, count: batch.count)), "batch \(index)")
        }
        XCTAssertFalse(server.log.contains("protocol error"))
    }
}
