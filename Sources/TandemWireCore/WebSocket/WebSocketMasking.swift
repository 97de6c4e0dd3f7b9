/// The XOR masking of RFC 6455 §5.3, eight bytes per step.
///
/// Masking and unmasking are the same operation. The hot loop loads and stores unaligned
/// 64-bit words and allocates nothing.
enum WebSocketMasking {
    /// XORs `count` bytes from `source` with the 4-byte `key` (wire order) into `destination`.
    /// `source` and `destination` may be the same memory. The key phase starts at byte 0.
    @inline(__always)
    static func apply(
        key: (UInt8, UInt8, UInt8, UInt8),
        from source: UnsafeRawPointer,
        to destination: UnsafeMutableRawPointer,
        count: Int
    ) {
        // The key repeated to 8 bytes in memory order, read back as a native word: XOR
        // with it acts byte by byte regardless of endianness.
        let pattern = (key.0, key.1, key.2, key.3, key.0, key.1, key.2, key.3)
        let word = withUnsafeBytes(of: pattern) { $0.loadUnaligned(as: UInt64.self) }
        var index = 0
        while index &+ 8 <= count {
            let value = source.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ word
            destination.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        // The tail: the key byte follows the position (the word loop kept the phase).
        while index < count {
            let keyByte: UInt8
            switch index & 3 {
            case 0: keyByte = key.0
            case 1: keyByte = key.1
            case 2: keyByte = key.2
            default: keyByte = key.3
            }
            let value = source.load(fromByteOffset: index, as: UInt8.self) ^ keyByte
            destination.storeBytes(of: value, toByteOffset: index, as: UInt8.self)
            index &+= 1
        }
    }

    /// The key as seen from payload offset `phase`: XOR-ing bytes that start at that offset
    /// with the rotated key continues the mask where an earlier piece stopped.
    static func rotated(_ key: (UInt8, UInt8, UInt8, UInt8), by phase: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        switch phase & 3 {
        case 0: key
        case 1: (key.1, key.2, key.3, key.0)
        case 2: (key.2, key.3, key.0, key.1)
        default: (key.3, key.0, key.1, key.2)
        }
    }
}
