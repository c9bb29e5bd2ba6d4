/// Lines' bytes gathered for one write, a line written in place through a pointer into room made
/// ahead in the buffer's own storage (set once, as the storage grows), not in scratch space and then
/// copied in: an export's lines pass through here hundreds of megabytes at a time.
public struct LineBuffer: Sendable {
    /// The bytes written, then room; only the first `count` are the lines.
    private var storage: [UInt8] = []
    /// How many bytes were written.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// The bytes written, as an array of their own.
    public var bytes: [UInt8] { Array(storage[..<count]) }

    /// Forgets the bytes written, keeping the storage for the next.
    public mutating func removeAll() {
        count = 0
    }

    /// `body` given the bytes written (valid only during `body`).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Appends `bytes`.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        writing(atMost: bytes.count) { at in
            _ = UnsafeMutableBufferPointer(start: at, count: bytes.count).initialize(from: bytes)
            return bytes.count
        }
    }

    /// Appends what `write` writes through a pointer into room for `room` bytes, returning how many
    /// it wrote: one capacity check for many small pieces.
    /// Inlined into the line's writer, a line's one caller.
    @inline(__always)
    mutating func writing(atMost room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < room {
            // Doubled, so the bytes are set (and the written ones copied) a bounded number of times.
            storage.append(contentsOf: repeatElement(0, count: max(room, storage.count)))
        }
        let start = count
        let written = storage.withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
        precondition(written <= room, "a line of \(written) bytes in room for \(room)")
        count += written
    }
}
