import Foundation
import HealthModel

/// The opaque anchor: format version, store epoch, owner, sequence and a checksum. A token from
/// another store or owner, or a damaged one, is refused instead of answering with wrong data.
struct AnchorToken: Equatable {
    static let formatVersion: UInt8 = 1
    let epoch: Data
    let owner: Int64
    let sequence: Int64

    var encoded: Data {
        var data = Data([Self.formatVersion])
        data.append(epoch)
        Self.append(owner, to: &data)
        Self.append(sequence, to: &data)
        data.append(TokenCrypto.sha256(data).prefix(4))
        return data
    }

    /// Decodes and checks the token against this store and owner.
    init(decoding data: Data, epoch: Data, owner: Int64) throws(HealthError) {
        let bytes = [UInt8](data)
        let bodyLength = 1 + epoch.count + 16
        guard bytes.count == bodyLength + 4, bytes[0] == Self.formatVersion else {
            throw HealthError(.invalidAnchor, "anchor is not one this store issued (bad length or format)", field: "anchor")
        }
        let body = Data(bytes[0..<bodyLength])
        guard TokenCrypto.sha256(body).prefix(4) == Data(bytes[bodyLength...]) else {
            throw HealthError(.invalidAnchor, "anchor is damaged (checksum mismatch)", field: "anchor")
        }
        guard Data(bytes[1..<1 + epoch.count]) == epoch, Self.read(bytes, at: 1 + epoch.count) == owner else {
            throw HealthError(.invalidAnchor, "anchor belongs to another store or owner", field: "anchor")
        }
        self.epoch = epoch
        self.owner = owner
        self.sequence = Self.read(bytes, at: 9 + epoch.count)
    }

    init(epoch: Data, owner: Int64, sequence: Int64) {
        self.epoch = epoch
        self.owner = owner
        self.sequence = sequence
    }

    private static func append(_ value: Int64, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func read(_ bytes: [UInt8], at offset: Int) -> Int64 {
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[offset + i]) }
        return Int64(bitPattern: value)
    }
}
