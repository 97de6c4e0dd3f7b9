#if canImport(CCrypto)
import CCrypto
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// One-shot message digests and HMAC used by the WebSocket handshake and by token signing.
///
/// On Linux the work is done by OpenSSL's libcrypto, on Apple platforms by CryptoKit; both give
/// identical results. Every function is pure and safe to call from any thread.
package enum Digest {
    /// Length in bytes of a SHA-1 digest.
    package static let sha1Length = 20
    /// Length in bytes of a SHA-256 digest (and of an HMAC-SHA-256 tag).
    package static let sha256Length = 32

    /// SHA-1 of `message` (20 bytes). Only for protocol uses that mandate it (RFC 6455's
    /// `Sec-WebSocket-Accept`); SHA-1 is not collision resistant.
    package static func sha1(_ message: [UInt8]) -> [UInt8] {
        #if canImport(CCrypto)
        return oneShot(message, length: sha1Length) { SHA1($0, $1, $2) }
        #elseif canImport(CryptoKit)
        return Array(Insecure.SHA1.hash(data: message))
        #endif
    }

    /// SHA-256 of `message` (32 bytes).
    package static func sha256(_ message: [UInt8]) -> [UInt8] {
        #if canImport(CCrypto)
        return oneShot(message, length: sha256Length) { SHA256($0, $1, $2) }
        #elseif canImport(CryptoKit)
        return Array(SHA256.hash(data: message))
        #endif
    }

    /// HMAC-SHA-256 (RFC 2104) of `message` under `key` (32 bytes). Keys of any length are
    /// accepted, the empty key included. Compare tags with `ConstantTime.equals(_:_:)` (TandemProtocol).
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        #if canImport(CCrypto)
        // A non-null key pointer even for the empty key: OpenSSL reads a null key as
        // "reuse the previous key", which a one-shot call does not have.
        let keyBytes = key.isEmpty ? [UInt8(0)] : key
        return [UInt8](unsafeUninitializedCapacity: sha256Length) { output, count in
            var length: UInt32 = 0
            keyBytes.withUnsafeBufferPointer { keyBuffer in
                message.withUnsafeBufferPointer { input in
                    _ = HMAC(
                        EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
                        input.baseAddress, input.count, output.baseAddress, &length
                    )
                }
            }
            count = Int(length)
        }
        #elseif canImport(CryptoKit)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return Array(code)
        #endif
    }

    #if canImport(CCrypto)
    /// Runs an OpenSSL one-shot digest `function(input, count, output)` over `message`.
    private static func oneShot(
        _ message: [UInt8], length: Int,
        _ function: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?
    ) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: length) { output, count in
            message.withUnsafeBufferPointer { input in
                _ = function(input.baseAddress, input.count, output.baseAddress)
            }
            count = length
        }
    }
    #endif
}
