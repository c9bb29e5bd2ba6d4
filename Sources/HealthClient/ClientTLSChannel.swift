import HealthModel
import HealthTLS
import HealthWire
import Synchronization

/// TLS on one client socket: a blocking handshake while connecting, then encryption for senders
/// and decryption for the reader queue. Records the reader's decryption produces (a TLS 1.3 key
/// update answer) leave with the next send.
final class ClientTLSChannel: Sendable {
    private let session: Mutex<TLSSession>
    /// Plaintext that arrived with the end of the handshake, delivered by the first `open`.
    private let early: Mutex<[UInt8]>

    private init(session: sending TLSSession, early: [UInt8]) {
        self.session = Mutex(session)
        self.early = Mutex(early)
    }

    /// Runs the handshake over `socket`, over by `deadline`: verifies the server's certificate
    /// against `tls` and the name dialed (or `tls.serverName`). Fails with `.unauthenticated` when the server cannot be
    /// verified, refuses, or does not speak TLS, and with `.unavailable` when the connection drops.
    static func handshake(over socket: Socket, endpoint: Endpoint, tls: ClientTLS,
                          before deadline: Deadline) throws(HealthError) -> ClientTLSChannel {
        guard case .tcp(let host, _) = endpoint else {
            throw HealthError.invalid("TLS needs a TCP server address; the Unix socket is plaintext", field: "tls")
        }
        let session = try TLSSession(context: tls.context, serverName: tls.serverName ?? host)
        var early: [UInt8] = []
        var firstRead = true
        do throws(HealthError) {
            while try !session.handshake() {
                try socket.write(session.takeOutput())
                let received = try socket.read(before: deadline, missing: "\(endpoint) did not finish the TLS handshake")
                guard !received.isEmpty else {
                    throw HealthError(.unavailable, "\(endpoint) closed the connection during the TLS handshake; is it a plaintext port?")
                }
                // Every TLS record starts with a content type in 20…23; a plaintext HealthStore
                // server answers a ClientHello with a length-prefixed Error frame.
                if firstRead, !(20...23).contains(received[0]) {
                    throw plaintextServer(endpoint, answered: received, socket: socket)
                }
                firstRead = false
                early += try received.withUnsafeBytes { bytes in Result { () throws(HealthError) in try session.receive(bytes) } }.get()
            }
            try socket.write(session.takeOutput())
        } catch {
            // The alert that says why, for the server's log.
            try? socket.write(session.takeOutput())
            throw error
        }
        return ClientTLSChannel(session: session, early: early)
    }

    /// The error for a server that answered the handshake in plaintext, with its own message when
    /// the answer is a HealthStore Error frame.
    private static func plaintextServer(_ endpoint: Endpoint, answered first: [UInt8], socket: Socket) -> HealthError {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: first)
        var said = ""
        let answered = Deadline(.seconds(1))
        // Reads on until a frame is complete or the server closed (it does, right after its Error).
        while true {
            if case .error(let error)? = (try? decoder.nextFrame())?.flatMap({ try? WireCodec.decodeServerMessage($0) })?.result {
                said = " (it said: \(error.message))"
                break
            }
            guard let more = try? socket.read(before: answered, missing: "an Error frame"), !more.isEmpty else { break }
            decoder.append(contentsOf: more)
        }
        return HealthError(.unauthenticated, "\(endpoint) does not speak TLS: it answered in plaintext\(said); connect without --tls")
    }

    /// Ciphertext to write for `plaintext`.
    func seal(_ plaintext: [UInt8]) throws(HealthError) -> [UInt8] {
        try session.withLock { (session: inout TLSSession) throws(HealthError) -> [UInt8] in
            try session.send(plaintext)
            return session.takeOutput()
        }
    }

    /// Plaintext carried by `ciphertext` read from the socket.
    func open(_ ciphertext: UnsafeRawBufferPointer) throws(HealthError) -> [UInt8] {
        let plaintext = try session.withLock { (session: inout TLSSession) throws(HealthError) -> [UInt8] in
            try session.receive(ciphertext)
        }
        let first = early.withLock { early in
            defer { early = [] }
            return early
        }
        return first.isEmpty ? plaintext : first + plaintext
    }
}
