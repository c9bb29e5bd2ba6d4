import CLibUV
import CMicroHTTPD
import Foundation
import HealthModel

/// The HTTP listener: libmicrohttpd parses HTTP, driven from a libuv loop through its epoll
/// descriptor (uv_poll → MHD_run) and a timer for its connection timeouts. Each request is read
/// whole, then its connection is suspended while the router answers on a task; the answer is
/// queued back on the loop, which resumes the connection.
///
/// Confinement: libmicrohttpd runs only inside `run()` on the loop's thread, so its callbacks,
/// every `Exchange` and every open `EventStream` are touched only there.
final class HTTPListener: @unchecked Sendable {
    private let loop: EventLoop
    private let router: HTTPRouter
    private let settings: HTTPSettings
    private var daemon: OpaquePointer?
    private let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private let keepAliveTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var streams: [ObjectIdentifier: EventStream] = [:]
    private var listenFD: Int32 = -1
    /// PEM text handed to libmicrohttpd, kept for the daemon's life.
    private var pem: [UnsafeMutablePointer<CChar>] = []

    init(loop: EventLoop, router: HTTPRouter, settings: HTTPSettings) {
        self.loop = loop
        self.router = router
        self.settings = settings
    }

    /// One request on its way through: its body as it arrives, then its answer. Loop thread only;
    /// the answering task carries it back to the loop without touching it.
    private final class Exchange: @unchecked Sendable {
        var body: [UInt8] = []
        /// Set for an upload path: the body goes here instead of `body`.
        var upload: UploadedFile?
        var uploadFailed: HealthError?
        var tooLarge = false
        var started = false
        var response: HTTPResponse?
    }

    // MARK: start and stop (loop thread, before it runs or inside a job)

    /// Binds and starts serving; returns the address with the port resolved. `tls` is the PEM text
    /// of the certificate and key (HTTPS).
    func start(tls: (certificate: String, key: String)?) throws(HealthError) -> String {
        var address = try Acceptor.address(host: settings.host, port: settings.port, field: "http")
        listenFD = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listenFD >= 0 else { throw HealthError(.internalError, "cannot create the HTTP socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(listenFD, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(address.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listenFD, $0, length) } }
        guard bound == 0, listen(listenFD, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            Foundation.close(listenFD)
            throw HealthError(.unavailable, "cannot listen for HTTP on \(settings.host):\(settings.port): \(reason)", field: "http")
        }
        var name = sockaddr_storage()
        var nameLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &name) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &nameLength) } }
        let port = Acceptor.port(of: name)

        pem = tls.map { [strdup($0.key)!, strdup($0.certificate)!] } ?? []
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = hs_mhd_start(listenFD, Self.handleRequest, Self.requestCompleted, context, 1024, 120,
                              pem.first.map { UnsafePointer($0) }, pem.last.map { UnsafePointer($0) })
        guard let daemon else {
            Foundation.close(listenFD)
            throw HealthError(.internalError, "libmicrohttpd did not start" + (tls == nil ? "" : " (is it built with TLS?)"), field: "http")
        }
        uv_poll_init(loop.loop, poll, hs_mhd_epoll_fd(daemon))
        poll.pointee.data = context
        uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { handle, _, _ in
            Unmanaged<HTTPListener>.fromOpaque(handle!.pointee.data).takeUnretainedValue().run()
        }
        uv_timer_init(loop.loop, timer)
        timer.pointee.data = context
        uv_timer_init(loop.loop, keepAliveTimer)
        keepAliveTimer.pointee.data = context
        uv_timer_start(keepAliveTimer, { handle in
            let listener = Unmanaged<HTTPListener>.fromOpaque(handle!.pointee.data).takeUnretainedValue()
            for stream in listener.streams.values { stream.keepAlive() }
        }, 15_000, 15_000)
        let host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        return "\(host):\(port)"
    }

    /// Stops accepting and ends every event stream; requests in flight are answered.
    func close() {
        guard let daemon else { return }
        let fd = MHD_quiesce_daemon(daemon)
        if fd >= 0 { Foundation.close(fd) }
        for stream in streams.values { stream.closed() }
        uv_timer_stop(keepAliveTimer)
    }

    // MARK: driving libmicrohttpd

    /// Lets libmicrohttpd do all it can now, then arms the timer for its next timeout.
    private func run() {
        guard let daemon else { return }
        MHD_run(daemon)
        var timeout: UInt64 = 0
        if MHD_get_timeout(daemon, &timeout) == MHD_Result.YES {
            uv_timer_start(timer, { handle in
                Unmanaged<HTTPListener>.fromOpaque(handle!.pointee.data).takeUnretainedValue().run()
            }, min(timeout, 1000), 0)
        } else {
            uv_timer_stop(timer)
        }
    }

    private func forget(_ stream: EventStream) {
        streams.removeValue(forKey: ObjectIdentifier(stream))
    }

    /// Runs libmicrohttpd on the next loop turn (after a resume, outside its callbacks).
    func runSoon() {
        uv_timer_start(timer, { handle in
            Unmanaged<HTTPListener>.fromOpaque(handle!.pointee.data).takeUnretainedValue().run()
        }, 0, 0)
    }

    private static let handleRequest: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, state in
        let listener = Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue()
        return listener.handle(connection!, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "GET",
                               upload: upload, uploadSize: uploadSize!, state: state!)
    }

    private static let requestCompleted: MHD_RequestCompletedCallback = { _, _, state, _ in
        guard let state, let exchange = state.pointee else { return }
        Unmanaged<Exchange>.fromOpaque(exchange).release()
        state.pointee = nil
    }

    private func handle(_ connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
                        uploadSize: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = state.pointee else {
            let exchange = Exchange()
            if method == "POST" && HTTPRequest.uploadPaths.contains(url) {
                if let refused = router.refusesUpload(headers: Self.headers(connection)) {
                    exchange.uploadFailed = refused
                } else {
                    do { exchange.upload = try UploadedFile(in: settings.uploadDirectory) } catch { exchange.uploadFailed = error }
                }
            }
            state.pointee = Unmanaged.passRetained(exchange).toOpaque()
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0, exchange.upload != nil || exchange.uploadFailed != nil {
            if let file = exchange.upload, let upload {
                if file.size + Int64(uploadSize.pointee) > settings.maxUploadBytes {
                    exchange.upload = nil
                    exchange.uploadFailed = HealthError(.dataSizeExceeded, "the upload is larger than \(settings.maxUploadBytes) bytes "
                        + "(healthd --http-upload-limit)", field: "body")
                } else if !file.append(UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)) {
                    exchange.upload = nil
                    exchange.uploadFailed = HealthError(.internalError, "cannot write the upload to a temporary file: \(String(cString: strerror(errno)))")
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if uploadSize.pointee > 0 {
            if exchange.body.count + uploadSize.pointee > settings.maxBodyBytes {
                exchange.tooLarge = true
                exchange.body = []
            } else if let upload, !exchange.tooLarge {
                upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                    exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let response = exchange.response { return queue(response, on: connection) }
        guard !exchange.started else { return MHD_Result.YES }
        exchange.started = true
        if exchange.tooLarge {
            let error = HealthError(.dataSizeExceeded, "the request body is larger than \(settings.maxBodyBytes) bytes", field: "body")
            return queue(router.finish(.error(error)), on: connection)
        }
        if let failed = exchange.uploadFailed { return queue(router.finish(.error(failed)), on: connection) }
        var request = Self.request(connection, url: url, method: method, body: exchange.body)
        exchange.upload?.close()
        request.upload = exchange.upload
        exchange.upload = nil
        MHD_suspend_connection(connection)
        let (router, loop) = (router, loop)
        let box = UncheckedConnection(connection)
        Task {
            let response = await router.respond(request)
            loop.post { [self] in
                exchange.response = response
                MHD_resume_connection(box.connection)
                run()
            }
        }
        return MHD_Result.YES
    }

    /// Hands `response` to libmicrohttpd; an event stream starts producing once queued.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let answer: OpaquePointer?
        if let stream = response.stream {
            answer = MHD_create_response_from_callback(hs_mhd_size_unknown, 16 * 1024, { context, _, buffer, max in
                Unmanaged<EventStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, max: max)
            }, Unmanaged.passRetained(stream).toOpaque(), { context in
                let stream = Unmanaged<EventStream>.fromOpaque(context!).takeRetainedValue()
                stream.closed()
                stream.listener?.forget(stream)
            })
        } else {
            answer = response.body.withUnsafeBytes { bytes in
                hs_mhd_response_copy(bytes.count, bytes.baseAddress)
            }
        }
        guard let answer else { return MHD_Result.NO }
        for (name, value) in response.headers { MHD_add_response_header(answer, name, value) }
        let queued = MHD_queue_response(connection, UInt32(response.status), answer)
        MHD_destroy_response(answer)
        if let stream = response.stream, queued == MHD_Result.YES {
            stream.listener = self
            streams[ObjectIdentifier(stream)] = stream
            stream.start(on: connection)
        }
        return queued
    }

    /// The headers the router reads, by lower-case name.
    private static func headers(_ connection: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        for name in HTTPRequest.readHeaders {
            if let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name) { headers[name] = String(cString: value) }
        }
        return headers
    }

    /// The request's method, path, query, the headers the router reads, body and peer.
    private static func request(_ connection: OpaquePointer, url: String, method: String, body: [UInt8]) -> HTTPRequest {
        let headers = headers(connection)
        final class Collected { var query: [String: String] = [:] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, { context, _, key, value in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                if let key { collected.query[String(cString: key)] = value.map { String(cString: $0) } ?? "" }
                return MHD_Result.YES
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        let peer = hs_mhd_client_address(connection).map(Acceptor.hostText) ?? "unknown"
        return HTTPRequest(method: method, path: url, query: collected.query, headers: headers, body: body, peer: peer)
    }
}

/// A libmicrohttpd connection pointer carried to the task that answers it; used only back on the loop.
private struct UncheckedConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}
