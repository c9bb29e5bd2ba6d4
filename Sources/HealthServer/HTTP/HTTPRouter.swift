import HealthModel
import HealthStorage
import HealthWire
import Synchronization

/// Where HTTP requests go: the operator endpoints, the browser session, the owner's JSON API
/// behind it, and the dashboard's files. Every answer leaves through `finish`, which adds the
/// security headers and counts it.
final class HTTPRouter: Sendable {
    private let core: ServerCore
    private let loop: EventLoop
    private let sessions: BrowserSessions
    private let assets: StaticAssets
    private let operatorEndpoints: OperatorEndpoints
    private let imports: ExportImports
    /// Cookies get `Secure` when the listener serves HTTPS.
    private let secure: Bool

    init(core: ServerCore, loop: EventLoop, settings: HTTPSettings, assets: StaticAssets) {
        self.core = core
        self.loop = loop
        self.assets = assets
        secure = core.config.tls != nil
        sessions = BrowserSessions(lifetime: .seconds(settings.sessionSeconds))
        operatorEndpoints = OperatorEndpoints(core: core, metricsTokenRequired: settings.metricsTokenRequired)
        imports = ExportImports(dispatcher: core.dispatcher, loop: loop)
    }

    /// Stops /readyz from reporting ready (the server is shutting down).
    func beginShutdown() {
        operatorEndpoints.beginShutdown()
    }

    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        do throws(HealthError) {
            return finish(try await route(request))
        } catch {
            return finish(.error(error))
        }
    }

    /// The headers every answer carries: no inline script or foreign origin, no sniffing, no framing.
    func finish(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.header("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
        response.header("X-Content-Type-Options", "nosniff")
        response.header("Referrer-Policy", "no-referrer")
        response.header("X-Frame-Options", "DENY")
        if !response.headers.contains(where: { $0.0 == "Cache-Control" }) { response.header("Cache-Control", "no-store") }
        core.metrics.recordHTTP(status: response.status)
        return response
    }

    private func route(_ request: HTTPRequest) async throws(HealthError) -> HTTPResponse {
        if let answer = try await operatorEndpoints.respond(request) { return answer }
        if request.path == "/api/session" { return try await session(request) }
        if request.path.hasPrefix("/api/") {
            return try await api(request, path: request.path.dropFirst("/api/".count).split(separator: "/", omittingEmptySubsequences: false))
        }
        guard request.method == "GET" || request.method == "HEAD" else { return Self.methodNotAllowed(request) }
        guard let file = assets.response(for: request.path, ifNoneMatch: request.headers["if-none-match"]) else { throw Self.notFound(request) }
        return file
    }

    // MARK: sign-in, who-am-I, sign-out

    private func session(_ request: HTTPRequest) async throws(HealthError) -> HTTPResponse {
        switch request.method {
        case "POST":
            try checkOrigin(request)
            let token = try request.jsonBody().string("token")
            let session = try await core.dispatcher.ownerSession(token: token, peer: request.peer).get()
            let (id, entry) = sessions.begin(session, token: token)
            core.logger.info("dashboard: \(session.roleName) signed in from \(request.peer)")
            var response = HTTPResponse.json(whoAmI(entry))
            response.header("Set-Cookie", sessions.cookie(id, secure: secure))
            return response
        case "GET":
            // Signed out is an answer, not an error: the page asks before it knows.
            do {
                return .json(whoAmI(try await signedIn(request).entry))
            } catch where error.code == .unauthenticated {
                return .json(.object(["owner": .null]))
            }
        case "DELETE":
            let (id, entry) = try await signedIn(request)
            try checkCSRF(request, entry)
            sessions.end(id)
            var response = HTTPResponse.noContent()
            response.header("Set-Cookie", sessions.cookie(nil, secure: secure))
            return response
        default:
            return Self.methodNotAllowed(request)
        }
    }

    private func whoAmI(_ entry: BrowserSessions.Entry) -> JSON {
        .object(["owner": .string(entry.session.principal.ownerName), "csrf_token": .string(entry.csrfToken)])
    }

    /// The request's live session; 401 without one, or once its owner token no longer authenticates.
    private func signedIn(_ request: HTTPRequest) async throws(HealthError) -> (id: String, entry: BrowserSessions.Entry) {
        guard let id = request.cookie(BrowserSessions.cookieName), let entry = sessions.entry(id) else {
            throw HealthError(.unauthenticated, "not signed in, or the session expired: sign in with the owner token")
        }
        guard await core.dispatcher.isStillValid(token: entry.token, for: entry.session.principal) else {
            sessions.end(id)
            throw HealthError(.unauthenticated, "the owner token of this session was rotated or revoked: sign in again")
        }
        return (id, entry)
    }

    /// State-changing requests carry the session's CSRF token in a header a foreign page cannot set.
    private func checkCSRF(_ request: HTTPRequest, _ entry: BrowserSessions.Entry) throws(HealthError) {
        guard let sent = request.headers[BrowserSessions.csrfHeader], BrowserSessions.sameSecret(sent, entry.csrfToken) else {
            throw HealthError(.permissionDenied, "missing or wrong X-CSRF-Token header: send the csrf_token from sign-in", field: "X-CSRF-Token")
        }
    }

    /// Sign-in has no session yet to hold a CSRF token: a browser's Origin must be this server's.
    private func checkOrigin(_ request: HTTPRequest) throws(HealthError) {
        guard let origin = request.headers["origin"] else { return }
        let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
        guard host != nil, host == request.headers["host"] else {
            throw HealthError(.permissionDenied, "sign-in from a foreign origin (\(origin)) is refused", field: "Origin")
        }
    }

    /// Whether an upload may be written to disk at all, from its headers before its body: a signed-in
    /// session and its CSRF token (checked again in full once the body is in).
    func refusesUpload(headers: [String: String]) -> HealthError? {
        let request = HTTPRequest(method: "POST", path: "", query: [:], headers: headers, body: [], peer: "")
        guard let id = request.cookie(BrowserSessions.cookieName), let entry = sessions.entry(id) else {
            return HealthError(.unauthenticated, "not signed in, or the session expired: sign in with the owner token")
        }
        do { try checkCSRF(request, entry) } catch { return error }
        return nil
    }

    // MARK: the owner's API

    private func api(_ request: HTTPRequest, path: [Substring]) async throws(HealthError) -> HTTPResponse {
        let (id, entry) = try await signedIn(request)
        if request.method != "GET" && request.method != "HEAD" { try checkCSRF(request, entry) }
        if path == ["events"] && request.method == "GET" { return events(id, entry) }
        if path.first == "imports" { return try importExport(request, path: path, entry) }
        let api = OwnerAPI(dispatcher: core.dispatcher, session: entry.session, loop: loop)
        guard let answer = try await api.respond(request, path: path) else { throw Self.notFound(request) }
        return answer
    }

    /// `POST /api/imports` (an Apple Health export as the body) starts an import; `GET /api/imports/<id>` tells how it goes.
    private func importExport(_ request: HTTPRequest, path: [Substring], _ entry: BrowserSessions.Entry) throws(HealthError) -> HTTPResponse {
        guard entry.session.principal.owner != nil else { throw HealthError(.permissionDenied, "imports are the owner's") }
        switch (request.method, path.count) {
        case ("POST", 1):
            guard let file = request.upload, file.size > 0 else {
                throw HealthError.invalid("send the export (export.zip or export.xml) as the request body", field: "body")
            }
            guard let id = imports.start(file, session: entry.session) else {
                return .error(HealthError(.resourceExhausted, "an import is running already: wait for it to finish", field: "body"), status: 409)
            }
            return .json(ExportImports.json(id, imports.status(id, owner: nil)!), status: 202)
        case ("GET", 2):
            guard let status = imports.status(String(path[1]), owner: entry.session.principal.ownerName) else {
                throw HealthError(.notFound, "no import \(path[1])", field: "id")
            }
            return .json(ExportImports.json(String(path[1]), status))
        default:
            throw Self.notFound(request)
        }
    }

    /// The live stream: new and deleted samples, and pending authorization requests (docs/http.md).
    private func events(_ id: String, _ entry: BrowserSessions.Entry) -> HTTPResponse {
        let (dispatcher, loop, session) = (core.dispatcher, loop, entry.session)
        var response = HTTPResponse(status: 200, contentType: "text/event-stream", body: [])
        response.stream = EventStream(loop: loop) { stream in
            let receiver = LiveEvents(stream: stream)
            do {
                guard let owner = session.principal.owner else { throw HealthError(.permissionDenied, "the event stream is the owner's") }
                // Everything saved after this anchor reaches the stream, also what lands before the watch starts.
                let anchor = try await dispatcher.store.currentAnchor(owner: owner)
                stream.send("ready", .object([:]))
                let everything = AnchoredQuery(types: TypeCatalog.sampleTypes.map(\.identifier), anchor: anchor, updates: true)
                async let samples: Void = dispatcher.stream(.queryAnchored(everything), session: session, loop: loop, to: receiver)
                async let requests: Void = dispatcher.stream(.listAuthorizationRequests(bundleID: nil, updates: true),
                                                             session: session, loop: loop, to: receiver)
                async let ended: Void = self.endWhenSignedOut(id, entry, receiver)
                _ = await (samples, requests, ended)
            } catch {
                await receiver.receive(.error(error as? HealthError ?? HealthError(.internalError, "\(error)")), more: false)
            }
            stream.finish()
        }
        return response
    }

    /// Ends a stream once its session does: sign-out, expiry, or an owner token that no longer authenticates.
    private func endWhenSignedOut(_ id: String, _ entry: BrowserSessions.Entry, _ receiver: LiveEvents) async {
        while (try? await Task.sleep(for: Self.sessionRecheck)) != nil {
            let valid = await core.dispatcher.isStillValid(token: entry.token, for: entry.session.principal)
            if sessions.entry(id) == nil || !valid {
                await receiver.receive(.error(HealthError(.unauthenticated, "the session ended: sign in again")), more: false)
                return
            }
        }
    }

    /// How often an open event stream checks that its session is still signed in.
    private static let sessionRecheck = Duration.seconds(2)

    private static func notFound(_ request: HTTPRequest) -> HealthError {
        HealthError(.notFound, "no \(request.method) \(request.path) here (see docs/http.md)", field: "path")
    }

    static func methodNotAllowed(_ request: HTTPRequest) -> HTTPResponse {
        .error(HealthError(.invalidArgument, "\(request.method) is not allowed on \(request.path)", field: "method"), status: 405)
    }
}

/// Turns the live calls' answers into events.
private struct LiveEvents: AnswerReceiver {
    let stream: EventStream

    func receive(_ result: ServerResult, more: Bool) async {
        switch result {
        case .anchored(let samples, let deleted, _, _, _, _):
            guard !samples.isEmpty || !deleted.isEmpty else { return }
            stream.send("samples", .object([
                "samples": .array(samples.map { SampleJSON.sample($0) }),
                "deleted": .array(deleted.map { .object(["uuid": .string($0.uuid.uuidString), "type": .string($0.type)]) }),
            ]))
        case .authorizationRequests(let requests):
            stream.send("authorization_requests", APIJSON.requests(requests))
        case .error(let error):
            stream.send("error", HTTPResponse.errorJSON(error))
            stream.finish()
        default:
            break
        }
    }
}
