import Foundation
import XCTest

/// HTTP/1.1 requests to healthd's HTTP listener, one per connection (`Connection: close`), over
/// RawClient's socket; it keeps the session cookie and CSRF token a sign-in returns.
struct HTTPTestClient {
    let port: UInt16
    var cookie: String?
    var csrfToken: String?

    init(_ server: ServerProcess) {
        port = server.httpPort
    }

    /// One answer: status, headers (lower-case names, every value) and body.
    struct Answer {
        let status: Int
        let headers: [String: [String]]
        let body: String

        func header(_ name: String) -> String? { headers[name.lowercased()]?.first }

        /// The body as a JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        }

        /// The error code of the documented error shape.
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    func request(_ method: String, _ path: String, json body: String? = nil, headers: [String: String] = [:],
                 contentType: String = "application/json") throws -> Answer {
        let socket = try RawClient(port: port)
        socket.sendRaw(Array(requestText(method, path, body: body, headers: headers, contentType: contentType).utf8))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(socket.fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw TestFailure("no HTTP answer to \(method) \(path): \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw TestFailure("bad status line: \(lines.first ?? "")")
        }
        var headers: [String: [String]] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased(), default: []].append(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    /// Signs in with `token`; keeps the cookie and CSRF token.
    mutating func signIn(_ token: String) throws -> Answer {
        let answer = try request("POST", "/api/session", json: #"{"token": "\#(token)"}"#)
        if answer.status == 200 {
            cookie = answer.header("set-cookie")?.split(separator: ";").first.map(String.init)
            csrfToken = answer.json["csrf_token"] as? String
        }
        return answer
    }

    /// Opens the event stream; read it with `EventReader`.
    func openEvents() throws -> EventReader {
        let socket = try RawClient(port: port)
        socket.sendRaw(Array(requestText("GET", "/api/events", body: nil, headers: ["Accept": "text/event-stream"]).utf8))
        socket.setTimeout(seconds: 1)
        return EventReader(socket: socket)
    }

    private func requestText(_ method: String, _ path: String, body: String?, headers: [String: String],
                             contentType: String = "application/json") -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let cookie { text += "Cookie: \(cookie)\r\n" }
        if let csrfToken, headers["X-CSRF-Token"] == nil { text += "X-CSRF-Token: \(csrfToken)\r\n" }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }
}

/// Reads an open event stream as text.
final class EventReader {
    let socket: RawClient
    private(set) var text = ""

    init(socket: RawClient) {
        self.socket = socket
    }

    /// Reads until the stream holds `needle`; false when it did not within `seconds` (a failing test's bound).
    func waitFor(_ needle: String, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !text.contains(needle) && Date() < deadline {
            let n = recv(socket.fd, &buffer, buffer.count, 0)
            if n == 0 { return false }
            if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) }
        }
        return text.contains(needle)
    }
}
