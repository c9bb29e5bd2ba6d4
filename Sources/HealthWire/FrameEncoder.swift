/// Builds frames: a 4-byte big-endian payload length followed by the payload.
public enum FrameEncoder {
    /// Size of the length prefix.
    public static let prefixBytes = 4

    /// `payload` with its length prefix.
    public static func encodeFrame(_ payload: some Collection<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: prefixBytes + payload.count) { buffer, count in
            writePrefix(payload.count, to: buffer.baseAddress!)
            count = prefixBytes + UnsafeMutableBufferPointer(rebasing: buffer[prefixBytes...]).initialize(from: payload).1
        }
    }

    /// Writes the big-endian length prefix for a payload of `length` bytes at `destination`.
    public static func writePrefix(_ length: Int, to destination: UnsafeMutablePointer<UInt8>) {
        precondition(length >= 0 && length <= Int(UInt32.max), "frame payload of \(length) bytes cannot be framed")
        destination[0] = UInt8(truncatingIfNeeded: length >> 24)
        destination[1] = UInt8(truncatingIfNeeded: length >> 16)
        destination[2] = UInt8(truncatingIfNeeded: length >> 8)
        destination[3] = UInt8(truncatingIfNeeded: length)
    }
}

/// `payload` with its 4-byte big-endian length prefix.
public func encodeFrame(_ payload: some Collection<UInt8>) -> [UInt8] {
    FrameEncoder.encodeFrame(payload)
}
