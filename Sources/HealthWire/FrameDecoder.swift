import HealthModel

/// Splits a byte stream into frames (4-byte big-endian length, then that many payload bytes).
///
/// Bytes may arrive in any chunking. A length prefix of zero or above `maxFrameBytes` is a protocol
/// error reported as soon as its four bytes arrive: the payload is neither awaited nor buffered, and
/// every byte after the bad prefix is dropped. Frames completed before the bad prefix are still
/// returned first, so a server can answer them before closing. The first frame may have a lower
/// limit of its own: a server expects a small Hello there and buffers no more for a stranger.
public struct FrameDecoder: Sendable {
    /// Largest accepted payload, in bytes.
    public let maxFrameBytes: Int
    /// Largest accepted payload of the stream's first frame, in bytes.
    public let maxFirstFrameBytes: Int

    private var buffer: [UInt8] = []
    /// Start of the first frame not yet returned.
    private var readOffset = 0
    /// Start of the first frame whose length prefix has not been checked.
    private var scanOffset = 0
    private var failure: HealthError?
    /// True once a length prefix was accepted, so later frames get the general limit.
    private var pastFirstFrame = false

    /// Compaction threshold: below it, consumed bytes stay in place until the buffer drains.
    private static let compactThreshold = 64 * 1024

    public init(maxFrameBytes: Int = WireLimits.defaultMaxFrameBytes, maxFirstFrameBytes: Int? = nil) {
        precondition(maxFrameBytes > 0 && maxFrameBytes <= Int(UInt32.max), "maxFrameBytes out of range")
        precondition(maxFirstFrameBytes.map { $0 > 0 && $0 <= maxFrameBytes } ?? true, "maxFirstFrameBytes out of range")
        self.maxFrameBytes = maxFrameBytes
        self.maxFirstFrameBytes = maxFirstFrameBytes ?? maxFrameBytes
    }

    /// The protocol error seen in the stream, if any; once set the decoder accepts no more bytes.
    public var error: HealthError? { failure }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readOffset }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, !bytes.isEmpty else { return }
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
        scanPrefixes()
    }

    /// Adds received bytes.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        guard failure == nil, !bytes.isEmpty else { return }
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
        scanPrefixes()
    }

    /// The next complete frame's payload, nil when more bytes are needed; throws `.frameTooLarge`
    /// once every frame before a bad length prefix has been returned.
    public mutating func nextFrame() throws(HealthError) -> [UInt8]? {
        try withNextFrame { Array($0) }
    }

    /// The next complete frame decoded as a client's (`WireCodec.decodeClientFrame`) where it lies in
    /// the buffer, nil when more bytes are needed; throws as `nextFrame` does. Here, beside
    /// `withNextFrame`, it is specialised: called generically from another module, every copy of the
    /// result went through the runtime's value witnesses.
    public mutating func nextClientFrame() throws(HealthError) -> Result<ClientFrame, HealthError>? {
        try withNextFrame { payload in Result { () throws(HealthError) in try WireCodec.decodeClientFrame(payload) } }
    }

    /// `body` applied to the next complete frame's payload in place (no copy; the bytes are valid
    /// only during `body`), nil when more bytes are needed; throws as `nextFrame` does.
    public mutating func withNextFrame<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(HealthError) -> R? {
        guard readOffset < scanOffset else {
            if let failure { throw failure }
            return nil
        }
        let length = lengthPrefix(at: readOffset)
        let start = readOffset + 4
        readOffset = start + length
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
    }

    /// Checks every length prefix that has fully arrived and advances over complete frames.
    private mutating func scanPrefixes() {
        while buffer.count - scanOffset >= 4 {
            let length = lengthPrefix(at: scanOffset)
            let limit = pastFirstFrame ? maxFrameBytes : maxFirstFrameBytes
            if length == 0 || length > limit {
                let what = length == 0 ? "zero"
                    : "\(length) bytes, above the maximum of \(limit)\(pastFirstFrame ? "" : " for the first frame")"
                failure = HealthError(.frameTooLarge, "frame length prefix is \(what)", field: "frame.length")
                buffer.removeSubrange(scanOffset...)
                return
            }
            pastFirstFrame = true
            guard buffer.count - scanOffset - 4 >= length else {
                buffer.reserveCapacity(scanOffset + 4 + length)
                return
            }
            scanOffset += 4 + length
        }
    }

    private func lengthPrefix(at offset: Int) -> Int {
        Int(buffer[offset]) << 24 | Int(buffer[offset + 1]) << 16 | Int(buffer[offset + 2]) << 8 | Int(buffer[offset + 3])
    }

    /// Drops returned frames: always when everything was consumed, otherwise only once the consumed
    /// prefix is large and at least half the buffer, so each byte moves O(1) times on average.
    private mutating func compactIfWorthwhile() {
        guard readOffset > 0 else { return }
        if readOffset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if readOffset >= Self.compactThreshold && readOffset * 2 >= buffer.count {
            buffer.removeSubrange(..<readOffset)
        } else {
            return
        }
        scanOffset -= readOffset
        readOffset = 0
    }
}
