/// Protocol constants and default limits.
public enum WireLimits {
    /// The protocol version this code speaks.
    public static let protocolVersion: UInt32 = 1
    /// Default largest frame payload, in bytes (4 MiB).
    public static let defaultMaxFrameBytes = 4 * 1024 * 1024
    /// Deepest nesting of predicates or correlations a decoder accepts, so hostile input cannot
    /// exhaust the stack.
    public static let maxNestingDepth = 32
    /// Deepest nesting of protobuf submessages a decoder accepts (protobuf's customary limit); a
    /// predicate or correlation nested `maxNestingDepth` deep stays well within it.
    public static let maxMessageDepth = 100
}
