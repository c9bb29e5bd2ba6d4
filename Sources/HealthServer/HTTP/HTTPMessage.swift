import Foundation
import HealthModel

/// One HTTP request as the router sees it, read whole (bodies are small: see `HTTPSettings.maxBodyBytes`;
/// an upload's body is in a temporary file instead).
struct HTTPRequest: Sendable {
    let method: String
    /// The path without its query, percent-decoded by libmicrohttpd.
    let path: String
    let query: [String: String]
    /// Header values by lower-case name (only the headers the router reads).
    let headers: [String: String]
    let body: [UInt8]
    /// The body of an upload endpoint, streamed to a temporary file instead of `body`.
    var upload: UploadedFile? = nil
    /// The peer's address without port: sign-in attempts are limited per address.
    let peer: String

    /// Paths whose POST body is an upload, streamed to a temporary file under its own size limit.
    static let uploadPaths: Set<String> = ["/api/imports"]

    /// The headers the router reads; others are never copied out of libmicrohttpd.
    static let readHeaders = ["cookie", "x-csrf-token", "origin", "host", "authorization", "content-type", "if-none-match"]

    /// The cookie's value, if the request carries it.
    func cookie(_ name: String) -> String? {
        for part in (headers["cookie"] ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name {
                return pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body as a JSON object's fields, or INVALID_ARGUMENT.
    func jsonBody() throws(HealthError) -> JSONFields {
        guard !body.isEmpty else { throw HealthError.invalid("the request needs a JSON object body", field: "body") }
        return try JSONFields(try JSON.parse(String(decoding: body, as: UTF8.self)), path: "")
    }
}

/// An HTTP answer: a whole body, or an event stream that stays open.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var stream: EventStream?

    init(status: Int, contentType: String, body: [UInt8]) {
        self.status = status
        self.body = body
        headers = [("Content-Type", contentType)]
    }

    static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        var bytes: [UInt8] = []
        value.write(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return HTTPResponse(status: status, contentType: "application/json", body: bytes)
    }

    static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    static func noContent() -> HTTPResponse {
        HTTPResponse(status: 204, contentType: "text/plain", body: [])
    }

    /// The documented error shape, with the status the error's code maps to.
    static func error(_ error: HealthError, status: Int? = nil) -> HTTPResponse {
        .json(errorJSON(error), status: status ?? httpStatus(error.code))
    }

    static func errorJSON(_ error: HealthError) -> JSON {
        .object(["error": .object([
            "code": .string(error.code.name), "message": .string(error.message), "field": .optional(error.field),
            "object_index": error.objectIndex.map { .int(Int64($0)) } ?? .null,
        ])])
    }

    static func httpStatus(_ code: HealthErrorCode) -> Int {
        switch code {
        case .invalidArgument, .malformed, .invalidAnchor, .anchorExpired, .unsupportedVersion, .frameTooLarge: 400
        case .unauthenticated: 401
        case .permissionDenied, .authorizationDenied, .authorizationNotDetermined: 403
        case .notFound, .noData: 404
        case .dataSizeExceeded: 413
        case .resourceExhausted: 429
        case .unavailable, .healthDataUnavailable, .databaseInaccessible: 503
        case .healthDataRestricted, .userCanceled, .internalError: 500
        }
    }

    mutating func header(_ name: String, _ value: String) {
        headers.append((name, value))
    }
}
