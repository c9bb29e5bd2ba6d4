/// A command line a tool cannot run: printed as one plain line naming the option, exit status 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in plain words, e.g. "--duration: '10x' is not a duration (use 10s, 5m, 1h or 1d)".
    public let message: String
    /// The option at fault, without dashes, when there is one.
    public let option: String?

    public init(_ message: String, option: String? = nil) {
        self.message = message
        self.option = option
    }

    /// An error about `--option`'s value, prefixed with the option's name.
    public static func value(_ option: String, _ problem: String) -> UsageError {
        UsageError("--\(option): \(problem)", option: option)
    }

    public var description: String { message }

    /// The exit status of a usage error (0 is success, 1 a failed operation).
    public static let exitStatus: Int32 = 2
}
