import CProtobufC
import Foundation

/// Bump allocator that owns every C struct, string and array built for one message, so building a
/// protobuf-c message costs a few large `malloc`s and one teardown instead of one per field.
/// Never outlives the encode or decode call that created it.
final class WireArena {
    // `@exclusivity(unchecked)`: an arena is used by one thread, and only `allocate` and `deinit`
    // touch its state, never re-entered; the runtime's check cost every unpacked frame ≈100 instructions.
    @exclusivity(unchecked) private var blocks: [UnsafeMutableRawPointer] = []
    @exclusivity(unchecked) private var cursor: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var remaining = 0
    @exclusivity(unchecked) private var nextBlockSize: Int

    private static let maxBlockSize = 1 << 20
    /// The first block of a small message's arena: within malloc's per-thread cache (at most 1,032
    /// bytes), which a 4 KiB block was not; a single-sample save is built and unpacked in it.
    private static let smallBlockSize = 1024

    init(initialBlockSize: Int = smallBlockSize) {
        nextBlockSize = initialBlockSize
    }

    /// An arena whose first block is `first`, memory it does not own and never frees.
    private init(borrowing first: UnsafeMutableRawBufferPointer, nextBlockSize: Int) {
        cursor = first.baseAddress
        remaining = first.count
        self.nextBlockSize = nextBlockSize
    }

    /// Runs `body` with an arena for unpacking `wireBytes` of protobuf (C structs take a few times the
    /// wire size). Its first block is on the stack, so a small message (every single-sample save)
    /// is unpacked without a `malloc`.
    static func unpacking<R>(_ wireBytes: Int, _ body: (WireArena) -> R) -> R {
        withUnsafeTemporaryAllocation(byteCount: smallBlockSize, alignment: 16) { first in
            let arena = WireArena(borrowing: first, nextBlockSize: min(max(smallBlockSize, wireBytes * 4), maxBlockSize))
            return withExtendedLifetime(arena) { body(arena) }
        }
    }

    deinit {
        for block in blocks { free(block) }
    }

    /// `size` bytes aligned to 8, zeroed only where the caller initialises them.
    func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        let rounded = (max(size, 1) + 7) & ~7
        if rounded > remaining {
            let blockSize = max(rounded, nextBlockSize)
            nextBlockSize = min(nextBlockSize * 2, Self.maxBlockSize)
            guard let block = malloc(blockSize) else { fatalError("out of memory allocating \(blockSize) bytes") }
            blocks.append(block)
            cursor = block
            remaining = blockSize
        }
        let result = cursor!
        cursor = result + rounded
        remaining -= rounded
        return result
    }

    /// A protobuf-c message initialised by its generated `…__init` function.
    func message<T>(_ initialise: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        let pointer = allocate(MemoryLayout<T>.stride).bindMemory(to: T.self, capacity: 1)
        initialise(pointer)
        return pointer
    }

    /// Uninitialised storage for `count` values; nil when `count` is 0 (protobuf-c's empty array).
    func array<T>(_ count: Int, of: T.Type) -> UnsafeMutablePointer<T>? {
        guard count > 0 else { return nil }
        return allocate(MemoryLayout<T>.stride * count).bindMemory(to: T.self, capacity: count)
    }

    /// A NUL-terminated copy of `string` (empty strings too, so no field is ever NULL).
    func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        if let copy = string.utf8.withContiguousStorageIfAvailable(cString) { return copy }
        return Array(string.utf8).withUnsafeBufferPointer(cString)
    }

    private func cString(_ utf8: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<CChar> {
        let pointer = allocate(utf8.count + 1)
        if let base = utf8.baseAddress { pointer.copyMemory(from: base, byteCount: utf8.count) }
        pointer.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
        return pointer.bindMemory(to: CChar.self, capacity: utf8.count + 1)
    }

    /// A copy of `bytes` as protobuf-c binary data.
    func binary(_ bytes: Data) -> ProtobufCBinaryData {
        guard !bytes.isEmpty else { return ProtobufCBinaryData(len: 0, data: nil) }
        let pointer = allocate(bytes.count)
        bytes.copyBytes(to: pointer.bindMemory(to: UInt8.self, capacity: bytes.count), count: bytes.count)
        return ProtobufCBinaryData(len: bytes.count, data: pointer.assumingMemoryBound(to: UInt8.self))
    }

    /// A protobuf-c allocator drawing from this arena. Its frees are no-ops: everything protobuf-c
    /// unpacks is released with the arena, in one go.
    var allocator: ProtobufCAllocator {
        ProtobufCAllocator(
            alloc: { data, size in Unmanaged<WireArena>.fromOpaque(data!)._withUnsafeGuaranteedRef { $0.allocate(size) } },
            free: { _, _ in },
            allocator_data: Unmanaged.passUnretained(self).toOpaque())
    }

    /// The 16 raw bytes of `uuid`.
    func binary(_ uuid: UUID) -> ProtobufCBinaryData {
        let pointer = allocate(16)
        withUnsafeBytes(of: uuid.uuid) { pointer.copyMemory(from: $0.baseAddress!, byteCount: 16) }
        return ProtobufCBinaryData(len: 16, data: pointer.bindMemory(to: UInt8.self, capacity: 16))
    }
}
