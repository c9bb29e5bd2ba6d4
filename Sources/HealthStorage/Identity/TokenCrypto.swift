import CCrypto
import Foundation
import HealthModel

/// Credentials: 256-bit random tokens (base64url text), stored only as SHA-256 hashes.
public enum TokenCrypto {
    /// `count` bytes from OpenSSL's CSPRNG.
    static func randomBytes(_ count: Int) throws(HealthError) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            throw HealthError(.internalError, "the random generator failed to produce a secret")
        }
        return Data(bytes)
    }

    /// A new token from OpenSSL's CSPRNG.
    static func newToken() throws(HealthError) -> String {
        try randomBytes(32).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// SHA-256 of the token's UTF-8 bytes.
    public static func hash(_ token: String) -> Data { sha256(Data(token.utf8)) }

    static func sha256(_ data: Data) -> Data {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = [UInt8](data)
        let ok = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil)
        precondition(ok == 1, "EVP_Digest(SHA-256) failed")
        return Data(digest.prefix(Int(length)))
    }

    /// HMAC-SHA-256 of `data` under `key`.
    static func hmacSHA256(key: Data, _ data: Data) -> Data {
        var mac = [UInt8](repeating: 0, count: 32)
        var length = 0
        let (keyBytes, bytes) = ([UInt8](key), [UInt8](data))
        let ok = EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyBytes, keyBytes.count, bytes, bytes.count, &mac, mac.count, &length)
        precondition(ok != nil && length == 32, "EVP_Q_mac(HMAC-SHA-256) failed")
        return Data(mac)
    }

    /// Constant-time equality of two hashes.
    static func equal(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { ra in b.withUnsafeBytes { rb in CRYPTO_memcmp(ra.baseAddress, rb.baseAddress, a.count) == 0 } }
    }
}
