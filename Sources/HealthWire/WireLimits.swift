/// Protocol constants and default limits.
public enum WireLimits {
    /// The protocol version this code speaks.
    public static let protocolVersion: UInt32 = 1
    /// Default largest frame payload, in bytes (4 MiB).
    public static let defaultMaxFrameBytes = 4 * 1024 * 1024
}
