import Foundation
@testable import HealthClient
import Synchronization
import TestSupport
import XCTest

/// The reader queue's fairness, with the bytes played by the reader (the layer that would read
/// them): a socket that always has more is read one turn at a time behind the others.
final class ReadinessLoopTests: XCTestCase {
    /// A socket with data without end (its reader always has more) does not starve another socket
    /// of the process: after a turn of 16 reads of the 64 KiB buffer (1 MiB) it is read on behind the
    /// other's report. Without the bound the endless socket is read until it gives up, and only then
    /// is the other one read.
    func testASocketThatAlwaysHasMoreDoesNotStarveTheOthers() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fair-\(UUID().uuidString.prefix(8)).sock").path
        let listener = try TestSocket.listen(unix: path)
        defer {
            close(listener)
            unlink(path)
        }
        let (endless, endlessPeer) = try Self.readable(path, listener)
        let (other, otherPeer) = try Self.readable(path, listener)
        defer {
            close(endlessPeer)
            close(otherPeer)
        }
        // Reads of the endless socket so far, and how many there were when the other one was read.
        let reads = Mutex((endless: 0, whenOtherRead: Int?.none, bufferBytes: 0))
        let endlessStarted = expectation(description: "the endless socket is being read")
        let otherRead = expectation(description: "the other socket was read")
        _ = ReadinessLoop.shared.watch(endless) { buffer in
            let (count, otherDone) = reads.withLock { reads in
                reads.endless += 1
                reads.bufferBytes = buffer.count
                return (reads.endless, reads.whenOtherRead != nil)
            }
            if count == 1 { endlessStarted.fulfill() }
            // Gives up in the end, so a starving loop fails the test instead of hanging it.
            return otherDone || count == Self.endlessGivesUpAfter ? .done : .more
        }
        wait(for: [endlessStarted], timeout: 30)
        _ = ReadinessLoop.shared.watch(other) { _ in
            reads.withLock { $0.whenOtherRead = $0.endless }
            otherRead.fulfill()
            return .done
        }
        wait(for: [otherRead], timeout: 60)
        let seen = reads.withLock { $0 }
        XCTAssertLessThan(seen.whenOtherRead ?? .max, Self.endlessGivesUpAfter, "the other socket waited for the endless one to give up")
        XCTAssertEqual(seen.bufferBytes * SocketWatch.readsInARow, 1 << 20, "a turn reads at most 1 MiB")
    }

    private static let endlessGivesUpAfter = 1_000_000

    /// A client socket connected through `listener` (at `path`) with a byte waiting to be read, and
    /// the server's end; the byte is never taken, so the socket stays readable.
    private static func readable(_ path: String, _ listener: Int32) throws -> (HealthClient.Socket, Int32) {
        let socket = try HealthClient.Socket.connect(to: .unix(path: path), before: Deadline(.seconds(5)))
        let peer = accept(listener, nil, nil)
        guard peer >= 0 else { throw TestSocketError(description: "accept failed: errno \(errno)") }
        var byte: UInt8 = 1
        _ = send(peer, &byte, 1, 0)
        return (socket, peer)
    }
}
