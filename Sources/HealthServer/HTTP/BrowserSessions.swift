import Foundation
import HealthModel
import Synchronization

/// Signed-in browsers. The cookie carries a random session id; the owner token stays in memory
/// here (to re-check it on every request, so a rotated or revoked token ends the session at once),
/// never in a cookie, a URL or a log line.
final class BrowserSessions: Sendable {
    static let cookieName = "healthstore_session"
    static let csrfHeader = "x-csrf-token"

    struct Entry: Sendable {
        let session: Session
        let token: String
        let csrfToken: String
        let expires: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let lifetime: Duration

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// Starts a session; returns its id (the cookie's value) and its entry.
    func begin(_ session: Session, token: String) -> (id: String, entry: Entry) {
        let id = Self.randomToken()
        let entry = Entry(session: session, token: token, csrfToken: Self.randomToken(), expires: .now + lifetime)
        entries.withLock { entries in
            let now = ContinuousClock.now
            entries = entries.filter { $0.value.expires > now }
            entries[id] = entry
        }
        return (id, entry)
    }

    /// The live session with this id, or nil (unknown or expired).
    func entry(_ id: String) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[id] else { return nil }
            guard entry.expires > .now else {
                entries.removeValue(forKey: id)
                return nil
            }
            return entry
        }
    }

    func end(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// The Set-Cookie value that starts (`id`) or clears (nil) the session cookie.
    func cookie(_ id: String?, secure: Bool) -> String {
        var parts = ["\(Self.cookieName)=\(id ?? "")", "Path=/", "HttpOnly", "SameSite=Strict"]
        if id == nil { parts.append("Max-Age=0") } else { parts.append("Max-Age=\(Int(lifetime / .seconds(1)))") }
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// 256 random bits as hex, from the system's cryptographic generator.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Compares secrets in time independent of where they differ.
    static func sameSecret(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
