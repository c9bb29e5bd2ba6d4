import Foundation
import Glibc
import HealthModel
import HealthWire

/// Sends mutated frames to a running healthd over several authenticated connections and, after
/// every batch, requires a Ping answer: the server dying or hanging is the failure signal. A
/// connection the server closes (it must, after a bad length prefix) is reopened with a new Hello.
struct LiveServer {
    let host: String
    let port: UInt16
    let token: String
    let connections: Int
    let batch: Int
    /// Long-running calls pile up on a connection; each is reopened after this many batches.
    private let reopenEvery = 20
    private static let pingIDBase: UInt64 = 0xF0F0_0000_0000_0000

    init(host: String, port: UInt16, token: String, connections: Int, batch: Int) {
        self.host = host
        self.port = port
        self.token = token
        self.connections = connections
        self.batch = batch
    }

    enum Failure: Error, CustomStringConvertible {
        case down(String)
        case hung(String)

        var description: String {
            switch self {
            case .down(let why): "server down: \(why)"
            case .hung(let why): "server not answering: \(why)"
            }
        }
    }

    /// Runs `iterations` inputs from `start`; returns normally only if the server answered every Ping.
    func run(mutator: Mutator, seed: UInt64, start: UInt64, iterations: UInt64, recorder: InputRecorder?,
             tally: inout Tally, progress: (UInt64, Tally) -> Void) throws(Failure) {
        var open: [Connection?] = Array(repeating: nil, count: connections)
        var iteration = start
        var batchNumber: UInt64 = 0
        while iteration < start + iterations {
            let slot = Int(batchNumber % UInt64(connections))
            if batchNumber % UInt64(connections * reopenEvery) < UInt64(connections) { open[slot] = nil }
            var connection: Connection
            if let reused = open[slot] { connection = reused } else { connection = try Connection(host: host, port: port, token: token) }
            let count = min(UInt64(batch), start + iterations - iteration)
            let inputs = (iteration..<iteration + count).map { mutator.input(seed: seed, iteration: $0) }
            recorder?.record(inputs.flatMap { $0 }, iteration: iteration)
            for input in inputs {
                // After an undecodable frame or a bad length prefix the server must close the
                // connection, and an incomplete frame would swallow the next input: those go over a
                // connection of their own, so the batch's calls are not cut off and every input
                // reaches a live connection.
                let expected = Self.expectation(input)
                if expected == .served {
                    if !connection.drain(into: &tally) || !connection.send(input) {
                        tally.accept("reconnects")
                        connection = try Connection(host: host, port: port, token: token)
                        _ = connection.send(input)
                    }
                    continue
                }
                tally.accept("reconnects")
                let single = try Connection(host: host, port: port, token: token)
                _ = single.send(input)
                if expected == .closed && !single.awaitClose(into: &tally) {
                    tally.record(stage: "server", HealthError(.internalError, "connection still open 30 s after a protocol error"))
                }
            }
            tally.inputs += Int(count)
            iteration += count
            batchNumber += 1
            // The batch's connection if the server kept it, else a fresh one, must answer a Ping.
            if try connection.ping(id: Self.pingIDBase + batchNumber, tally: &tally) {
                open[slot] = connection
            } else {
                let fresh = try Connection(host: host, port: port, token: token)
                guard try fresh.ping(id: Self.pingIDBase + batchNumber, tally: &tally) else {
                    throw .down("a fresh connection was closed before answering Ping")
                }
                open[slot] = fresh
            }
            progress(iteration - start, tally)
        }
    }

    private enum Expectation { case served, closed, incomplete }

    /// What the server must do with an input, from the same decoders it uses.
    private static func expectation(_ input: [UInt8]) -> Expectation {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: input)
        do throws(HealthError) {
            while let payload = try decoder.nextFrame() {
                // Only a frame that is no ClientMessage at all closes the connection; a call that
                // decodes but breaks the contract is answered under its call_id (docs/protocol.md).
                guard (try? WireCodec.decodeClientFrame(payload)) != nil else { return .closed }
            }
        } catch {
            return .closed
        }
        return decoder.bufferedByteCount > 0 ? .incomplete : .served
    }

    /// One authenticated connection with blocking I/O and a receive timeout.
    final class Connection {
        private let fd: Int32
        private var decoder = FrameDecoder()
        private static let timeoutSeconds = 30

        init(host: String, port: UInt16, token: String) throws(Failure) {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw .down("'\(host)' is not an IPv4 address") }
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, connected == 0 else { throw .down("cannot connect to \(host):\(port): \(String(cString: strerror(errno)))") }
            var timeout = timeval(tv_sec: Self.timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            guard send(WireCodec.encodeClientFrame(ClientMessage(callID: 1, call: .hello(Hello(token: token))))) else {
                throw .down("connection closed before Hello")
            }
            var ignored = Tally()
            guard case .hello? = try answer(to: 1, tally: &ignored) else { throw .down("Hello was not answered with HelloResult") }
        }

        deinit { close(fd) }

        /// False once the server has closed the connection.
        func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }

        /// Reads whatever answers already arrived, so neither side blocks on a full buffer.
        func drain(into tally: inout Tally) -> Bool {
            if case .closed = receive(wait: false, tally: &tally, until: nil) { return false }
            return true
        }

        /// True once the server has closed the connection, false when it stayed open past the timeout.
        func awaitClose(into tally: inout Tally) -> Bool {
            if case .closed = receive(wait: true, tally: &tally, until: nil) { return true }
            return false
        }

        /// True when the Ping was answered, false when the server closed the connection first.
        func ping(id: UInt64, tally: inout Tally) throws(Failure) -> Bool {
            guard send(WireCodec.encodeClientFrame(ClientMessage(callID: id, call: .ping(Data([0x70]))))) else { return false }
            guard let result = try answer(to: id, tally: &tally) else { return false }
            guard case .pong = result else { throw .hung("Ping \(id) was answered with \(result)") }
            return true
        }

        private func answer(to id: UInt64, tally: inout Tally) throws(Failure) -> ServerResult? {
            switch receive(wait: true, tally: &tally, until: id) {
            case .found(let result): return result
            case .closed: return nil
            case .timedOut: throw .hung("no answer to call \(id) within \(Self.timeoutSeconds) s")
            case .drained: throw .hung("no answer to call \(id)")
            }
        }

        private enum Received { case found(ServerResult), closed, timedOut, drained }

        private func receive(wait: Bool, tally: inout Tally, until id: UInt64?) -> Received {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                do throws(HealthError) {
                    while let payload = try decoder.nextFrame() {
                        guard let message = try? WireCodec.decodeServerMessage(payload) else {
                            tally.record(stage: "answer", HealthError(.internalError, "undecodable server message of \(payload.count) bytes"))
                            continue
                        }
                        if case .error(let error) = message.result {
                            tally.record(stage: "server", error)
                        } else {
                            tally.accept("answer")
                        }
                        if message.callID == id, !message.more { return .found(message.result) }
                    }
                } catch {
                    tally.record(stage: "answer", HealthError(.internalError, "server sent a bad frame: \(error.message)"))
                    return .closed
                }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, wait ? 0 : Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    decoder.append(contentsOf: buffer[..<count])
                } else if count == 0 {
                    return .closed
                } else if errno == EINTR {
                    continue
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    return wait ? .timedOut : .drained
                } else {
                    return .closed
                }
            }
        }
    }
}
