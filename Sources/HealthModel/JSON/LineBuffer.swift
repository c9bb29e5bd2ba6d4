/// Lines' bytes gathered for one write, a line written in place through a pointer into room made
/// ahead in the buffer's own storage (set once, as the storage grows), not in scratch space and then
/// copied in: an export's lines pass through here hundreds of megabytes at a time.
///
/// The storage is aligned to `LineBuffer.alignment`, so whole blocks of it can be handed to a write
/// that bypasses the page cache (`O_DIRECT`) without being copied (`takeBlocks`).
public struct LineBuffer: Sendable {
    /// The alignment of the storage's start, a multiple of any file system's block size.
    public static let alignment = 4096

    /// The bytes written, then room; only the first `count` are the lines.
    private var storage: Storage?
    /// How many bytes were written.
    public private(set) var count = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// The bytes written, as an array of their own.
    public var bytes: [UInt8] { withBytes { Array($0) } }

    /// Forgets the bytes written, keeping the storage for the next.
    public mutating func removeAll() {
        count = 0
    }

    /// `body` given the bytes written (valid only during `body`).
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage?.base, count: count))
    }

    /// Appends `bytes`.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        writing(atMost: bytes.count) { at in
            _ = UnsafeMutableBufferPointer(start: at, count: bytes.count).initialize(from: bytes)
            return bytes.count
        }
    }

    /// The whole blocks of `block` bytes written (`block` a multiple of `alignment`), handed over
    /// with the storage that holds them; what follows them (less than a block) is moved to the start
    /// of `spare`'s storage (earlier blocks handed back once written) or of a new one, where the
    /// buffer goes on. Nil while less than a block is written.
    public mutating func takeBlocks(of block: Int, spare: Blocks?) -> Blocks? {
        precondition(block > 0 && block % Self.alignment == 0, "blocks of \(block) bytes")
        let whole = count / block * block
        guard whole > 0, let full = storage else { return nil }
        let rest = count - whole
        let next = spare.map(\.storage).flatMap { $0.capacity >= full.capacity ? $0 : nil } ?? Storage(capacity: full.capacity)
        next.base.copyMemory(from: full.base + whole, byteCount: rest)
        (storage, count) = (next, rest)
        return Blocks(storage: full, count: whole)
    }

    /// Appends what `write` writes through a pointer into room for `room` bytes, returning how many
    /// it wrote: one capacity check for many small pieces.
    /// Inlined into the line's writer, a line's one caller.
    @inline(__always)
    mutating func writing(atMost room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage == nil || storage!.capacity - count < room || !isKnownUniquelyReferenced(&storage) {
            // Doubled, so the bytes are set (and the written ones copied) a bounded number of times;
            // a copy of its own when the buffer was copied (value semantics).
            let capacity = storage.map { $0.capacity - count < room ? max(count + room, 2 * $0.capacity) : $0.capacity }
                ?? max(room, Self.alignment)
            let grown = Storage(capacity: capacity)
            if let storage { grown.base.copyMemory(from: storage.base, byteCount: count) }
            storage = grown
        }
        let written = write(storage!.base.assumingMemoryBound(to: UInt8.self) + count)
        precondition(written <= room, "a line of \(written) bytes in room for \(room)")
        count += written
    }

    /// Memory aligned to `alignment`, freed with its last reference.
    final class Storage: @unchecked Sendable {
        // Sendable: its bytes are written only through the one `LineBuffer` that holds it uniquely,
        // and read once handed over (`Blocks`), when no buffer writes it any more.
        let base: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: capacity, alignment: LineBuffer.alignment)
        }

        deinit { base.deallocate() }
    }

    /// Whole blocks of a buffer's bytes, handed over by `takeBlocks`, with the storage that holds
    /// them (aligned to `LineBuffer.alignment`): a buffer written on no longer writes them.
    public struct Blocks: Sendable {
        fileprivate let storage: Storage
        /// How many bytes; a multiple of the block size asked for.
        public let count: Int

        /// The bytes' start, aligned to `LineBuffer.alignment`.
        public var start: UnsafeRawPointer { UnsafeRawPointer(storage.base) }
    }
}
