import Foundation
import HealthModel
import HealthWire
import TestSupport

/// A blocking socket client speaking the protocol with HealthWire's codec: precise enough for
/// pipelining and for sending deliberately broken bytes.
final class RawClient {
    let fd: Int32
    private var decoder = FrameDecoder(maxFrameBytes: 64 << 20)
    private var nextCallID: UInt64 = 1
    /// Answers read while waiting for another call.
    private var stash: [ServerMessage] = []
    /// True when the last failed read was the server closing (not a timeout).
    private(set) var sawEndOfStream = false

    /// Connects to 127.0.0.1:`port`, from the loopback address `source` (e.g. "127.0.0.7") when given.
    init(port: UInt16, from source: String? = nil) throws {
        fd = try TestSocket.connect(loopbackPort: port, from: source)
        setTimeout(seconds: Self.defaultTimeout)
    }

    init(unixPath: String) throws {
        fd = try TestSocket.connect(unix: unixPath)
        setTimeout(seconds: Self.defaultTimeout)
    }

    deinit { close(fd) }

    /// Seconds a receive waits before giving up: generous, because only a failing test waits it
    /// out, and a loaded CI machine can be slow to deliver a long-running call's next answer.
    static let defaultTimeout = 30

    func setTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Makes the receive buffer small, so a client that stops reading fills up fast.
    func shrinkReceiveBuffer() {
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func sendRaw(_ bytes: [UInt8]) {
        RawClient.sendAll(bytes, to: fd)
    }

    /// Sends every byte to the socket `fd` (blocking), or stops at the first error; usable from
    /// another thread while this client reads.
    static func sendAll(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Sends a call and returns its call id.
    @discardableResult
    func submit(_ call: ClientCall) -> UInt64 {
        let id = nextCallID
        nextCallID += 1
        sendRaw(WireCodec.encodeClientFrame(ClientMessage(callID: id, call: call)))
        return id
    }

    /// The next message from the server; nil at end of stream or timeout.
    func receive() -> ServerMessage? {
        if !stash.isEmpty { return stash.removeFirst() }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let frame = try? decoder.nextFrame() {
                return try? WireCodec.decodeServerMessage(frame)
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                sawEndOfStream = n == 0 || errno == ECONNRESET
                return nil
            }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// The next message for `callID`, keeping others for later.
    func receive(callID: UInt64) -> ServerMessage? {
        if let index = stash.firstIndex(where: { $0.callID == callID }) { return stash.remove(at: index) }
        var held: [ServerMessage] = []
        defer { stash.append(contentsOf: held) }
        while let message = receive() {
            if message.callID == callID { return message }
            held.append(message)
        }
        return nil
    }

    /// The observer's next answer; an event is acknowledged at once, as a HealthKit app's
    /// completion handler would be (the acknowledgement's own answer is left unread).
    func nextEvent(_ observer: UInt64) -> ServerMessage? {
        let message = receive(callID: observer)
        if case .observerEvent(_, let sequence)? = message?.result, sequence > 0 {
            submit(.ackObserverEvent(targetCallID: observer, sequence: sequence))
        }
        return message
    }

    /// Every answer of a call up to and including its final one.
    func collect(_ callID: UInt64) -> [ServerResult] {
        var results: [ServerResult] = []
        while let message = receive(callID: callID) {
            results.append(message.result)
            if !message.more { break }
        }
        return results
    }

    /// Sends a call and returns its final answer (pages concatenated by the caller via `collect`).
    @discardableResult
    func call(_ call: ClientCall) -> ServerResult? {
        collect(submit(call)).last
    }

    /// Says Hello; returns the answer.
    @discardableResult
    func hello(_ token: String, version: String = "1.0") -> ServerResult? {
        call(.hello(Hello(token: token, sourceRevision: SourceRevision(source: Source(name: "", bundleID: ""), version: version,
                                                                      productType: "Test1,1", osMajor: 1, osMinor: 2, osPatch: 3))))
    }

    /// Reads until the server closes the connection; the messages it sent first, or nil when it
    /// did not close within the receive timeout.
    func messagesUntilClosed() -> [ServerMessage]? {
        var messages: [ServerMessage] = []
        while let message = receive() { messages.append(message) }
        return sawEndOfStream ? messages : nil
    }
}

extension ServerResult {
    /// The error code, when this answer is an error.
    var errorCode: HealthErrorCode? {
        if case .error(let error) = self { return error.code }
        return nil
    }
}
