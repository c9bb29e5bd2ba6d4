import Foundation

/// A Bloom filter over every (owner, UUID) that SQLite's UUID levels hold or held since it was built,
/// so the UUID claim (`UUIDLevels.claimSQL`) seeks the middle and merged levels only for a UUID that
/// may be there: nearly every saved UUID is new, and those seeks into levels of millions of rows were
/// the claim's largest cost that grows with the store (bench/README.md, "A filter before the UUID
/// claim's seeks"). It answers "absent" only for a pair it was never given, so pairs are added before
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

    func insert(owner: Int64, _ uuid: UUID) {
        var last = layers[layers.count - 1]
        if last.count >= last.capacity {
            last = Layer(capacity: layers.reduce(0) { $0 + $1.capacity })
            layers.append(last)
        }
        let hash = hash(owner: owner, uuid), offset = last.offset(hash)
        last.blocks.storeBytes(of: last.blocks.load(fromByteOffset: offset, as: SIMD8<UInt32>.self) | Self.bits(hash), toByteOffset: offset,
                               as: SIMD8<UInt32>.self)
        last.count += 1
    }

    /// False only when the pair was never inserted.
    func mayContain(owner: Int64, _ uuid: UUID) -> Bool {
        let hash = hash(owner: owner, uuid), bits = Self.bits(hash)
        return layers.contains { ($0.blocks.load(fromByteOffset: $0.offset(hash), as: SIMD8<UInt32>.self) & bits) == bits }
    }

    /// The pair's bit in each word of its block.
    private static func bits(_ hash: UInt64) -> SIMD8<UInt32> {
        SIMD8(repeating: 1) &<< ((SIMD8(repeating: UInt32(truncatingIfNeeded: hash)) &* salts) &>> 27)
    }

    private func hash(owner: Int64, _ uuid: UUID) -> UInt64 {
        let (high, low) = withUnsafeBytes(of: uuid.uuid) {
            ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        return Self.mix(high ^ Self.mix(low ^ Self.mix(UInt64(bitPattern: owner) ^ seed)))
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
