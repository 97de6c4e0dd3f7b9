/// The Redis Cluster slot of a key: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16,384.
///
/// The hash tag is the text between the first `{` and the first `}` after it, when that text is not
/// empty; keys with the same tag (Tandem's `tandem:{room}:…`) share a slot, so one script may touch
/// them all.
package enum RedisHashSlot {
    /// The number of slots of a Redis Cluster.
    package static let count = 16_384

    /// The slot `key` belongs to.
    package static func of(_ key: String) -> Int {
        of(Array(key.utf8))
    }

    /// The slot of a key given as bytes.
    package static func of(_ key: [UInt8]) -> Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")),
           let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 {
            hashed = key[(open + 1)..<close]
        }
        return Int(crc16(hashed)) & (count - 1)
    }

    /// CRC16-CCITT as Redis Cluster uses it: polynomial 0x1021, initial value 0, no reflection.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }
}
