import Foundation
import HealthModel

/// A Bloom filter over every (owner, UUID head) that SQLite's UUID levels hold or held since it was
/// built (`UUIDLevels.head`: the levels keep only a UUID's head, so that is what a build reads), so the
/// UUID claim (`WriteContext.claimUUIDs`) looks the levels up only for a UUID whose head may be there: nearly
/// every saved UUID is new, and those seeks into levels of millions of rows were the claim's largest
/// cost that grows with the store (bench/README.md, "A filter before the UUID claim's seeks"). It
/// answers "absent" only for a pair it was never given, so pairs are added before
/// they are claimed and never removed: a claim undone with its transaction, or a deleted sample, only
/// leaves a false "maybe", which costs the seek the filter saved. Split-block layout (Parquet's): a
/// pair sets one bit in each of the 8 words of one 32-byte block, so a lookup reads one cache line.
/// It grows by layers of doubling capacity rather than by rebuilding from the store.
final class UUIDFilter {
    /// 16 bits a pair at capacity: about 0.13 % false "maybe" in a full layer.
    static let bitsPerPair = 16
    /// Parquet's: each word's bit is the top 5 bits of the key times its salt.
    private static let salts = SIMD8<UInt32>(0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b,
                                              0x9efc_4947, 0x5c6b_fb31)

    /// One fixed-size filter of 32-byte blocks, each read and written as one vector; the last takes the new pairs.
    private final class Layer {
        let blocks: UnsafeMutableRawPointer
        let blockCount: UInt64
        let capacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = capacity
            blockCount = UInt64(max(1, capacity * UUIDFilter.bitsPerPair / 256))
            blocks = .allocate(byteCount: Int(blockCount) * 32, alignment: 32)
            blocks.initializeMemory(as: UInt8.self, repeating: 0, count: Int(blockCount) * 32)
        }

        deinit { blocks.deallocate() }

        var bytes: Int { Int(blockCount) * 32 }

        /// The byte offset of `hash`'s block.
        func offset(_ hash: UInt64) -> Int { Int((hash >> 32 &* blockCount) >> 32) * 32 }
    }

    private var layers: [Layer]
    /// Per process, so UUIDs chosen to collide in one store's filter do not collide in another's.
    private let seed = UInt64.random(in: 1...UInt64.max)

    /// A filter sized for `capacity` pairs before it adds its first layer.
    init(capacity: Int) {
        layers = [Layer(capacity: max(capacity, 1 << 16))]
    }

    /// Bytes the filter holds.
    var bytes: Int { layers.reduce(0) { $0 + $1.bytes } }

    /// Adds the owner's UUID, by its head.
    func insert(owner: Int64, _ uuid: UUID) { insert(owner: owner, key: Self.key(uuid)) }

    /// Adds a head a level holds (`UUIDLevels.head`, 8 bytes).
    func insert(owner: Int64, head: Data) { insert(owner: owner, key: Self.key(head)) }

    /// Adds a head a run holds (`UUIDEntry.head`, its bytes read big-endian; `key` reads them in memory order).
    func insert(owner: Int64, head: UInt64) { insert(owner: owner, key: head.bigEndian) }

    private func insert(owner: Int64, key: UInt64) {
        var last = layers[layers.count - 1]
        if last.count >= last.capacity {
            last = Layer(capacity: layers.reduce(0) { $0 + $1.capacity })
            layers.append(last)
        }
        let hash = hash(owner: owner, key), offset = last.offset(hash)
        last.blocks.storeBytes(of: last.blocks.load(fromByteOffset: offset, as: SIMD8<UInt32>.self) | Self.bits(hash), toByteOffset: offset,
                               as: SIMD8<UInt32>.self)
        last.count += 1
    }

    /// False only when no UUID of the owner with this UUID's head was inserted.
    func mayContain(owner: Int64, _ uuid: UUID) -> Bool {
        let hash = hash(owner: owner, Self.key(uuid)), bits = Self.bits(hash)
        return layers.contains { ($0.blocks.load(fromByteOffset: $0.offset(hash), as: SIMD8<UInt32>.self) & bits) == bits }
    }

    /// The pair's bit in each word of its block.
    private static func bits(_ hash: UInt64) -> SIMD8<UInt32> {
        SIMD8(repeating: 1) &<< ((SIMD8(repeating: UInt32(truncatingIfNeeded: hash)) &* salts) &>> 27)
    }

    /// A UUID's head, its first 8 bytes in memory order, as a stored head's (`key(_: Data)`).
    private static func key(_ uuid: UUID) -> UInt64 {
        withUnsafeBytes(of: uuid.uuid) { $0.loadUnaligned(as: UInt64.self) }
    }

    /// Loaded in place: copying the bytes out through `prefix(8).copyBytes(to:)` cost 2.5 µs a head
    /// (Foundation's generic path), 4 s of a 1M-row build.
    private static func key(_ head: Data) -> UInt64 {
        head.count >= 8 ? head.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } : 0
    }

    private func hash(owner: Int64, _ key: UInt64) -> UInt64 {
        Self.mix(key ^ Self.mix(UInt64(bitPattern: owner) ^ seed))
    }

    /// MurmurHash3's 64-bit finaliser: every input bit flips about half the output bits.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }
}

/// What a `UUIDFilterBuild` reads from: a connection of its own to the store, opened on its thread.
struct UUIDFilterSource: Sendable {
    let connect: @Sendable () throws(HealthError) -> Database
    /// Runs on the build's thread once it has read every level (tests hold the build there).
    let pause: (@Sendable () -> Void)?
}

/// A `UUIDFilter` built on a thread of its own, from a connection of its own (`UUIDLevels.filter(reading:)`),
/// while the store serves: reading every level of a 10M store takes seconds. Until the writer takes
/// it (`WriteContext.currentUUIDFilter`) the claim seeks every level, as with no filter, and the
/// writer keeps each pair it claims meanwhile in `claimed`, added on taking it: the build may have
/// read past where those pairs were stored. Another connection's commit since `version` is in
/// neither, so the writer builds again when the store's `data_version` moved past it.
final class UUIDFilterBuild: @unchecked Sendable {
    // `claimed` is the writer thread's alone; the result passes from the build's thread to it under `lock`.
    /// The writer connection's `data_version` when the build started.
    let version: Int64
    /// Pairs the writer claimed since the build started.
    var claimed: [(owner: Int64, uuid: UUID)] = []
    private let lock = NSLock()
    private var result: Result<UUIDFilter, HealthError>?
    private var note: String?
    private var waiters: [CheckedContinuation<String, Never>] = []

    /// Starts the build; `pause`: see `UUIDFilterSource`.
    init(version: Int64, connect: @escaping @Sendable () throws(HealthError) -> Database, pause: (@Sendable () -> Void)?) {
        self.version = version
        let thread = Thread(named: "uuid-filter") { [self] in
            let began = ContinuousClock.now
            let built: Result<UUIDFilter, HealthError>
            do throws(HealthError) {
                built = .success(try UUIDLevels.filter(reading: try connect()))
            } catch {
                built = .failure(error)
            }
            pause?()
            let seconds = (ContinuousClock.now - began) / .seconds(1)
            let note = switch built {
            case .success(let filter):
                String(format: "UUID filter built in %.2f s while serving: %.1f MiB", seconds, Double(filter.bytes) / 1_048_576)
            case .failure(let error):
                "UUID filter not built (\(error.message)): until the next open every save seeks each UUID level"
            }
            finish(built, note: note)
        }
        thread.name = "healthstore-uuid-filter"
        thread.start()
    }

    private func finish(_ built: Result<UUIDFilter, HealthError>, note: String) {
        lock.lock()
        result = built
        self.note = note
        let waiting = waiters
        waiters = []
        lock.unlock()
        waiting.forEach { $0.resume(returning: note) }
    }

    /// The finished build's filter (or why it failed), once; nil while it runs. Writer thread only.
    func take() -> Result<UUIDFilter, HealthError>? {
        lock.lock()
        defer { lock.unlock() }
        let taken = result
        result = nil
        return taken
    }

    /// How the build went, for the log, once it has finished.
    func finished() async -> String {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let note {
                lock.unlock()
                continuation.resume(returning: note)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
