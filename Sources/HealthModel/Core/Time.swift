import Foundation

/// Instants on the wire and in the store: microseconds since 1970-01-01T00:00:00Z.
public typealias Microseconds = Int64

/// Conversions between `Microseconds`, `Date` and text, and the clock.
public enum Time {
    public static let microsPerSecond: Int64 = 1_000_000

    /// The current time in microseconds since the Unix epoch.
    public static func now() -> Microseconds {
        Microseconds((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }

    public static func date(_ micros: Microseconds) -> Date {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    public static func micros(_ date: Date) -> Microseconds {
        Microseconds((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// `Date.distantFuture` in microseconds: an end at or after it means "undetermined duration".
    public static let distantFuture: Microseconds = micros(Date.distantFuture)

    /// ISO 8601 text of an instant in UTC with millisecond precision, for people-facing output.
    public static func iso8601(_ micros: Microseconds) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date(micros))
    }
}
