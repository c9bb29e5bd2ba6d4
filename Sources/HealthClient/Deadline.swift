import Dispatch
import HealthModel

/// When a step of connecting must be over: the TCP connection, the TLS handshake and the answer to
/// Hello share one, so a server that accepts and then says nothing fails the dial in `timeout`.
struct Deadline: Sendable {
    let timeout: Duration
    let end: ContinuousClock.Instant

    init(_ timeout: Duration) {
        self.timeout = timeout
        end = .now + timeout
    }

    /// The time left: zero once the deadline passed.
    var left: Duration { max(.zero, end - .now) }

    /// Milliseconds left, for poll(2): 0 once the deadline passed.
    var millisecondsLeft: Int32 {
        let left = left
        guard left > .zero else { return 0 }
        return Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// The error for `what` ("127.0.0.1:7420 did not answer Hello") not over in time.
    func missed(_ what: String) -> HealthError {
        HealthError(.unavailable, "\(what) within \(timeout.spoken)")
    }
}

extension Duration {
    /// "10 s", "0.25 s": as the messages that name a timeout print it.
    var spoken: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        let whole = milliseconds / 1000, fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(whole) s" }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals) s"
    }

    /// The same span for Dispatch.
    var dispatch: DispatchTimeInterval {
        .nanoseconds(Int(clamping: components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000))
    }
}
