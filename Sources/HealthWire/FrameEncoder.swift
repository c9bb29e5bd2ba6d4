/// Builds frames: a 4-byte big-endian payload length followed by the payload.
public enum FrameEncoder {
    /// Size of the length prefix.
    public static let prefixBytes = 4

    /// `payload` with its length prefix.
    public static func encodeFrame(_ payload: some Collection<UInt8>) -> [UInt8] {
        var frame = [UInt8]()
        frame.reserveCapacity(prefixBytes + payload.count)
        appendPrefix(payload.count, to: &frame)
        frame.append(contentsOf: payload)
        return frame
    }

    /// Appends the big-endian length prefix for a payload of `length` bytes.
    public static func appendPrefix(_ length: Int, to frame: inout [UInt8]) {
        precondition(length >= 0 && length <= Int(UInt32.max), "frame payload of \(length) bytes cannot be framed")
        frame.append(UInt8(truncatingIfNeeded: length >> 24))
        frame.append(UInt8(truncatingIfNeeded: length >> 16))
        frame.append(UInt8(truncatingIfNeeded: length >> 8))
        frame.append(UInt8(truncatingIfNeeded: length))
    }
}

/// `payload` with its 4-byte big-endian length prefix.
public func encodeFrame(_ payload: some Collection<UInt8>) -> [UInt8] {
    FrameEncoder.encodeFrame(payload)
}
