import Foundation
import HealthModel

/// The opaque anchor: the owner, the position of the last object handed to the holder and the purge
/// horizon it was synced against, sealed with the store's secret key. Sealing hides all three (a
/// read-restricted app learns neither the owner's id nor how far the sequence moved) and refuses a
/// token from another store or owner, or a damaged one, instead of answering with wrong data.
///
/// The seal is deterministic authenticated encryption (SIV with HMAC-SHA-256): the tag is a MAC of
/// the payload, and the payload is encrypted with a key stream derived from the tag. Equal anchors
/// stay equal bytes, so an answer that hands back the caller's anchor hands back the same bytes.
struct AnchorToken: Equatable {
    static let formatVersion: UInt8 = 2
    private static let payloadLength = 24, tagLength = 16
    static let encodedLength = 1 + payloadLength + tagLength
    let owner: Int64
    /// The last object handed to the holder; 0 when it was given nothing yet.
    let sequence: Int64
    /// The holder's purge horizon when it last caught up: deletions at or below it that it may
    /// still need were purged after that only if the horizon has since moved past both this and
    /// `sequence` (docs/semantics.md decision 4; see `ReadContext.purgeHorizon`).
    let horizon: Int64

    init(owner: Int64, sequence: Int64, horizon: Int64) {
        self.owner = owner
        self.sequence = sequence
        self.horizon = horizon
    }

    func encoded(key: Data) -> Data {
        var payload = Data()
        for value in [owner, sequence, horizon] { withUnsafeBytes(of: value.bigEndian) { payload.append(contentsOf: $0) } }
        let tag = Self.tag(payload, key: key)
        return Data([Self.formatVersion]) + Self.xor(payload, Self.keyStream(tag, key: key)) + tag
    }

    /// Opens and checks the token against this store's key and the owner.
    init(decoding data: Data, key: Data, owner: Int64) throws(HealthError) {
        let bytes = [UInt8](data)
        guard bytes.count == Self.encodedLength, bytes[0] == Self.formatVersion else {
            throw HealthError(.invalidAnchor, "anchor is not one this store issued (bad length or format)", field: "anchor")
        }
        let tag = Data(bytes[(1 + Self.payloadLength)...])
        let payload = Self.xor(Data(bytes[1..<1 + Self.payloadLength]), Self.keyStream(tag, key: key))
        guard TokenCrypto.equal(Self.tag(payload, key: key), tag) else {
            throw HealthError(.invalidAnchor, "anchor is damaged or was issued by another store", field: "anchor")
        }
        let fields = [UInt8](payload)
        guard Self.read(fields, at: 0) == owner else {
            throw HealthError(.invalidAnchor, "anchor was issued for another owner", field: "anchor")
        }
        self.owner = owner
        sequence = Self.read(fields, at: 8)
        horizon = Self.read(fields, at: 16)
    }

    private static func tag(_ payload: Data, key: Data) -> Data {
        TokenCrypto.hmacSHA256(key: key, Data([1]) + payload).prefix(tagLength)
    }

    private static func keyStream(_ tag: Data, key: Data) -> Data {
        TokenCrypto.hmacSHA256(key: key, Data([2]) + tag).prefix(payloadLength)
    }

    private static func xor(_ a: Data, _ b: Data) -> Data {
        Data(zip(a, b).map { $0 ^ $1 })
    }

    private static func read(_ bytes: [UInt8], at offset: Int) -> Int64 {
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[offset + i]) }
        return Int64(bitPattern: value)
    }
}
