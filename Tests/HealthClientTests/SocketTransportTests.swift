import Foundation
@testable import HealthClient
import HealthModel
import HealthWire
import Synchronization
import TestSupport
import XCTest

/// A socket transport over a real Unix socket, with the test playing the server.
final class SocketTransportTests: XCTestCase {
    /// A server that sent more than one read takes and then hung up is seen to have ended. Dispatch
    /// reports the hang-up once and stops watching the socket, so a reader that left the end unread
    /// (a read of 64 KiB with more behind it) waited forever: an export cut off by a relay hung so.
    func testAServerThatSentMoreThanOneReadTakesAndHungUpIsSeenToEnd() throws {
        let (transport, server, cleanUp) = try Self.connected()
        defer { cleanUp() }
        Self.sendAnswersAndHangUp(server)
        let told = expectation(description: "onClose")
        let answers = Mutex(0)
        transport.start(onMessage: { _ in answers.withLock { $0 += 1 } }, onClose: { _ in told.fulfill() })
        wait(for: [told], timeout: 30)
        XCTAssertEqual(answers.withLock { $0 }, Self.answers, "every answer before the end")
    }

    /// Reading held as the server hung up reads no further until released, then goes on to the end:
    /// Dispatch does not report the hang-up again.
    func testReadingHeldAsTheServerHungUpGoesOnToTheEndOnceReleased() throws {
        let answers = try readHeldAsTheServerHungUp { $0.releaseReading() }
        XCTAssertEqual(answers, Self.answers, "every answer before the end")
    }

    /// A transport closed while its reading is held, after the server hung up, still reads to the
    /// end and closes its socket.
    func testATransportClosedWhileHeldAfterTheServerHungUpStillEnds() throws {
        _ = try readHeldAsTheServerHungUp { $0.close() }
    }

    /// Starts a transport on answers and the server's end, holds its reading at the first answer,
    /// lets go of it with `letGo` once the read under way is over, and waits for `onClose`; returns
    /// the answers delivered.
    private func readHeldAsTheServerHungUp(letGo: (SocketTransport) -> Void) throws -> Int {
        let (transport, server, cleanUp) = try Self.connected()
        defer { cleanUp() }
        Self.sendAnswersAndHangUp(server)
        let (held, told) = (expectation(description: "held"), expectation(description: "onClose"))
        let answers = Mutex(0)
        transport.start(onMessage: { _ in
            let count = answers.withLock { count in
                count += 1
                return count
            }
            if count == 1 {
                transport.holdReading()
                held.fulfill()
            }
        }, onClose: { _ in told.fulfill() })
        wait(for: [held], timeout: 30)
        usleep(200_000)
        XCTAssertLessThan(answers.withLock { $0 }, Self.answers, "held: nothing read after the read under way")
        letGo(transport)
        wait(for: [told], timeout: 30)
        return answers.withLock { $0 }
    }

    private static let answers = 25

    /// Answers to a call nobody waits for, 100 KB in all (more than the reader's 64 KiB buffer), and
    /// the end, all there before the transport starts reading.
    private static func sendAnswersAndHangUp(_ server: Int32) {
        let answer = ServerMessage(callID: 7, more: true, result: .pong(payload: Data(count: 4_000), serverTime: 0))
        let bytes = Array((0..<answers).map { _ in WireCodec.encodeServerFrame(answer) }.joined())
        XCTAssertEqual(bytes.withUnsafeBytes { send(server, $0.baseAddress, $0.count, 0) }, bytes.count)
        shutdown(server, Int32(SHUT_RDWR))
    }

    /// When the server ends the stream, the connection is told (`onClose`) before the transport
    /// refuses sends: a send failing with "connection is closed" must find the connection already
    /// closed, or a reconnecting client takes the failure for the call's own and does not retry it
    /// on the next node.
    func testTheConnectionLearnsOfTheEndBeforeTheTransportRefusesSends() throws {
        let (transport, server, cleanUp) = try Self.connected()
        defer { cleanUp() }

        let sentWhenTold = Mutex<Result<Void, HealthError>?>(nil)
        let told = expectation(description: "onClose")
        transport.start(onMessage: { _ in }, onClose: { _ in
            sentWhenTold.withLock { $0 = Result { () throws(HealthError) in try transport.send(ClientMessage(callID: 1, call: .ping(Data()))) } }
            told.fulfill()
        })
        // The server stops sending but goes on reading, so a send the transport lets through arrives.
        shutdown(server, Int32(SHUT_WR))
        wait(for: [told], timeout: 30)
        XCTAssertNoThrow(try sentWhenTold.withLock { $0 }?.get(), "the transport was closed before the connection was told")
    }

    /// A transport connected to a Unix socket of the test's, the server's end of it, and what closes both.
    private static func connected() throws -> (SocketTransport, Int32, () -> Void) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("transport-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try TestSocket.listen(unix: path, backlog: 1)
        defer {
            close(listener)
            unlink(path)
        }
        let transport = try SocketTransport(endpoint: .unix(path: path), maxFrameBytes: WireLimits.defaultMaxFrameBytes,
                                            before: Deadline(.seconds(30)))
        let server = accept(listener, nil, nil)
        guard server >= 0 else { throw HealthError(.unavailable, "accept failed: errno \(errno)") }
        return (transport, server, {
            transport.close()
            close(server)
        })
    }
}
