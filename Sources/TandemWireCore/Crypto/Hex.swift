/// Lower-case hexadecimal text of bytes: how random ids and MAC tags are written.
package enum Hex {
    /// Two lower-case hex digits per byte, in order.
    package static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
