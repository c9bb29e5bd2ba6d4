import Foundation
import TestSupport

/// A Unix-socket relay in front of a server, for cutting a client's connections mid-call: `cut()`
/// drops every relayed connection and stops accepting (dials fail as with a server that is gone)
/// until `open()`. The server-to-client direction is paced (`chunk` bytes, then `pause`), so a long
/// answer is still arriving when the test cuts it.
final class UnixProxy: @unchecked Sendable {
    let path: String
    private let target: String
    private let chunk: Int
    private let pause: useconds_t
    // Everything below `lock` is touched only with it held.
    private let lock = NSLock()
    private var listener: Int32 = -1
    private var relayed: Set<Int32> = []

    init(to target: String, at path: String, chunk: Int = 4096, pauseMicros: useconds_t = 2_000) throws {
        (self.target, self.path, self.chunk, self.pause) = (target, path, chunk, pauseMicros)
        try open()
    }

    deinit { cut() }

    /// Listens again: new dials are relayed.
    func open() throws {
        let fd = try TestSocket.listen(unix: path)
        lock.withLock { listener = fd }
        Thread { self.accepting(fd) }.start()
    }

    /// Drops every relayed connection and stops listening.
    func cut() {
        let (fd, open) = lock.withLock { () -> (Int32, Set<Int32>) in
            defer { (listener, relayed) = (-1, []) }
            return (listener, relayed)
        }
        if fd >= 0 {
            // Wakes the accepting thread, which closes it.
            shutdown(fd, Int32(SHUT_RDWR))
            unlink(path)
        }
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func accepting(_ fd: Int32) {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { break }
            let server = (try? TestSocket.connect(unix: target)) ?? -1
            let kept = server >= 0 && lock.withLock { () -> Bool in
                guard listener == fd else { return false }
                relayed.formUnion([client, server])
                return true
            }
            guard kept else {
                close(client)
                close(server)
                continue
            }
            Thread { self.pump(from: client, to: server, paced: false) }.start()
            Thread { self.pump(from: server, to: client, paced: true) }.start()
        }
        close(fd)
    }

    /// Copies until either side ends, then ends both (each socket is closed by the pump reading it).
    private func pump(from source: Int32, to destination: Int32, paced: Bool) {
        var buffer = [UInt8](repeating: 0, count: chunk)
        copying: while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                // A side cut meanwhile must end the copy, not raise SIGPIPE in the test process.
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { break copying }
                sent += written
            }
            if paced { usleep(pause) }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        lock.withLock { _ = relayed.remove(source) }
        close(source)
    }
}
