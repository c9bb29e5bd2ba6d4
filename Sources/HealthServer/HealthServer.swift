import CLibUV
import Foundation
import HealthModel
import HealthStorage

/// The HealthStore RPC server: listeners on the calling thread's loop, connections on I/O loops.
///
/// Call `start()` to bind the listeners (it returns the addresses, with ephemeral ports resolved),
/// then `run()`, which serves until SIGTERM or SIGINT and then shuts down gracefully: it stops
/// accepting, ends long-running calls, waits for calls in flight, closes the store and returns.
/// With TLS configured, SIGHUP reloads the certificate and key for new connections.
public final class HealthServer {
    private let store: any Store
    private let core: ServerCore
    private let mainLoop = EventLoop(name: "healthd-main")
    private let ioLoops: [EventLoop]
    private let acceptor: Acceptor
    private var http: (listener: HTTPListener, router: HTTPRouter)?
    private var shuttingDown = false

    public init(store: any Store, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        core = ServerCore(store: store, config: configuration, logger: logger)
        ioLoops = (0..<max(1, configuration.ioThreads)).map { EventLoop(name: "healthd-io-\($0)") }
        acceptor = Acceptor(mainLoop: mainLoop, ioLoops: ioLoops, core: core)
    }

    /// Binds the listeners; returns what they listen on, e.g. ["tcp 127.0.0.1:7420", "unix /tmp/h.sock"].
    public func start() throws(HealthError) -> [String] {
        var addresses: [String] = []
        let config = core.config
        if let host = config.tcpHost {
            try core.tls?.load()
            let security = core.tls.map { " (\($0.summary))" } ?? ""
            addresses.append("tcp " + (try acceptor.listenTCP(host: host, port: config.tcpPort)) + security)
        }
        if let path = config.unixPath {
            try acceptor.listenUnix(path: path)
            addresses.append("unix \(path)")
        }
        guard !addresses.isEmpty else { throw HealthError.invalid("no listener configured", field: "listen") }
        if let settings = config.http, let address = try startHTTP(settings) { addresses.append(address) }
        // Watched before the caller announces readiness: a SIGTERM that follows the ready line must
        // shut down gracefully, not kill the process with the default action.
        for signal in [SIGTERM, SIGINT] { watch(signal) }
        if core.tls != nil { watch(SIGHUP) }
        // libuv writes to sockets with write(2): a client gone mid-answer would raise SIGPIPE, whose
        // default action ends the whole server. Ignored, the write fails with EPIPE and only that
        // connection ends.
        signal(SIGPIPE, SIG_IGN)
        return addresses
    }

    /// The HTTP listener on the main loop, with the TCP listener's certificate when it has one. A busy
    /// default port costs only the HTTP listener; a port the operator chose must be free.
    private func startHTTP(_ settings: HTTPSettings) throws(HealthError) -> String? {
        if let uploads = settings.uploadDirectory {
            let removed = UploadedFile.removeAbandoned(in: uploads)
            if removed > 0 { core.logger.info("removed \(removed) upload(s) left by a server that stopped mid-import, from \(uploads)") }
        }
        let assets = StaticAssets(directory: settings.assetsDirectory)
        let router = HTTPRouter(core: core, loop: mainLoop, settings: settings, assets: assets)
        let listener = HTTPListener(loop: mainLoop, router: router, settings: settings)
        var tls: (certificate: String, key: String)?
        if let files = core.config.tls {
            do {
                tls = (try String(contentsOfFile: files.certificate, encoding: .utf8), try String(contentsOfFile: files.privateKey, encoding: .utf8))
            } catch {
                throw HealthError.invalid("cannot read the TLS certificate or key for HTTPS: \(error)", field: "tls-cert")
            }
        }
        let address: String
        do {
            address = try listener.start(tls: tls)
        } catch where settings.isDefault && error.code == .unavailable {
            // Worded without HOST:PORT: scripts read the first address in the log as the binary listener's.
            core.logger.warning("the default HTTP port \(settings.port) is not available; the dashboard and /metrics are off "
                + "(choose a port with --http)")
            return nil
        }
        if assets.directory == nil { core.logger.warning("the dashboard's files were not found; / answers 404") }
        http = (listener, router)
        return (tls == nil ? "http " : "https ") + address
    }

    /// Serves until SIGTERM/SIGINT, then drains, closes the store and returns.
    public func run() async {
        let config = core.config
        let shortest = min(config.helloTimeout, config.frameTimeout, config.idleTimeout, config.slowClientTimeout)
        let sweepEvery = EventLoop.sweepEvery(intervalMilliseconds: 200, shortestTimeout: shortest)
        for loop in ioLoops {
            loop.startHousekeeping(everyMilliseconds: 200, sweepEvery: sweepEvery)
            loop.startThread()
        }
        core.dispatcher.startChangeFeed()
        mainLoop.runHere()
        for loop in ioLoops {
            loop.stop()
            loop.waitUntilStopped()
        }
        core.dispatcher.stopChangeFeed()
        await store.close()
        core.logger.info("stopped; store closed")
    }

    private func watch(_ signal: Int32) {
        let handle = UnsafeMutablePointer<uv_signal_t>.allocate(capacity: 1)
        uv_signal_init(mainLoop.loop, handle)
        handle.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_signal_start(handle, { handle, signal in
            let server = Unmanaged<HealthServer>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            if signal == SIGHUP {
                server.core.tls?.reload(logger: server.core.logger)
            } else {
                server.beginShutdown(signal: signal)
            }
        }, signal)
    }

    /// Main loop: stop accepting, drain every connection, then stop the main loop once all are
    /// closed or the grace period is over.
    private func beginShutdown(signal: Int32) {
        guard !shuttingDown else { return }
        shuttingDown = true
        core.logger.info("signal \(signal): stopping; finishing \(core.registry.openCount) connection(s)")
        acceptor.close()
        http?.router.beginShutdown()
        http?.listener.close()
        for loop in ioLoops {
            loop.post {
                for connection in Array(loop.connections.values) { connection.beginDrain() }
                loop.flushPending()
            }
        }
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        uv_timer_init(mainLoop.loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let deadline = uv_now(mainLoop.loop) + UInt64(core.config.shutdownGrace * 1000)
        shutdownDeadline = deadline
        uv_timer_start(timer, { timer in
            let server = Unmanaged<HealthServer>.fromOpaque(timer!.pointee.data).takeUnretainedValue()
            server.checkDrained()
        }, 20, 20)
    }

    private var shutdownDeadline: UInt64 = 0

    private func checkDrained() {
        let open = core.registry.openCount
        let late = uv_now(mainLoop.loop) > shutdownDeadline
        guard open == 0 || late else { return }
        if late { core.logger.warning("grace period over; closing \(open) connection(s) with calls still in flight") }
        mainLoop.stop()
    }
}
