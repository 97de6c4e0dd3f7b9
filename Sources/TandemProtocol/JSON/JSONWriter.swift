#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Low-level compact JSON output into a byte array, shared by `JSONValue` serialization and
/// the hand-written wire-message encoders.
///
/// Output is deterministic: object keys sorted by UTF-8 bytes; integral numbers with
/// |x| < 2^53 written as integers, all other finite numbers in Swift's shortest round-trip
/// form, non-finite numbers as `null`; strings escape `"`, `\` and control characters
/// (`\b \t \n \f \r` in short form as RFC 8785 does, the rest as `\u00XX`), everything else
/// is written as raw UTF-8. `byteCount(of:)` predicts the output size exactly without writing.
enum JSONWriter {
    /// 2^53: below it every integer is exactly representable and printed without a fraction.
    static let exactIntegerLimit: Double = 9_007_199_254_740_992

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: raw("null", into: &out)
        case .bool(let flag): raw(flag ? "true" : "false", into: &out)
        case .number(let number): write(number: number, into: &out)
        case .string(let text): write(string: text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in sortedMembers(members) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(string: key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Members in the canonical order: by the keys' UTF-8 bytes (not Swift's `String <`, which
    /// compares canonically equivalent forms as equal).
    static func sortedMembers(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { utf8Precedes($0.key, $1.key) }
    }

    /// Whether `lhs` sorts before `rhs` by UTF-8 bytes, comparing contiguous storage directly.
    static func utf8Precedes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
    }

    @inline(__always)
    static func raw(_ text: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    static func write(number: Double, into out: inout [UInt8]) {
        guard number.isFinite else {
            raw("null", into: &out)
            return
        }
        if number.rounded(.towardZero) == number && number.magnitude < exactIntegerLimit {
            write(integer: Int64(number), into: &out)
        } else {
            out.append(contentsOf: number.description.utf8)
        }
    }

    static func write(integer: Int64, into out: inout [UInt8]) {
        if integer < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        let digits = decimalDigitCount(magnitude)
        let end = out.count + digits
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var position = end - 1
        while magnitude >= 10 {
            out[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            position -= 1
        }
        out[position] = UInt8(ascii: "0") + UInt8(magnitude)
    }

    static func decimalDigitCount(_ value: UInt64) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// The escape written for an ASCII byte, or 0 when it is written as is.
    @inline(__always)
    static func shortEscape(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case 0x08: UInt8(ascii: "b")
        case 0x09: UInt8(ascii: "t")
        case 0x0A: UInt8(ascii: "n")
        case 0x0C: UInt8(ascii: "f")
        case 0x0D: UInt8(ascii: "r")
        default: 0
        }
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    static func write(string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = string
        text.withUTF8 { utf8 in
            var runStart = 0
            for position in utf8.indices where needsEscape(utf8[position]) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                let byte = utf8[position]
                out.append(UInt8(ascii: "\\"))
                let short = shortEscape(byte)
                if short != 0 {
                    out.append(short)
                } else {
                    raw("u00", into: &out)
                    out.append(hexDigit(byte >> 4))
                    out.append(hexDigit(byte & 0x0F))
                }
                runStart = position + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    // MARK: - Size without writing

    /// The exact number of bytes `write(_:into:)` produces for `value`.
    static func byteCount(of value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .number(let number): return byteCount(ofNumber: number)
        case .string(let text): return byteCount(ofString: text)
        case .array(let elements):
            var total = 2 + max(elements.count - 1, 0)
            for element in elements { total += byteCount(of: element) }
            return total
        case .object(let members):
            var total = 2 + max(members.count - 1, 0)
            for (key, member) in members { total += byteCount(ofString: key) + 1 + byteCount(of: member) }
            return total
        }
    }

    static func byteCount(ofNumber number: Double) -> Int {
        guard number.isFinite else { return 4 }
        if number.rounded(.towardZero) == number && number.magnitude < exactIntegerLimit {
            let integer = Int64(number)
            return decimalDigitCount(integer.magnitude) + (integer < 0 ? 1 : 0)
        }
        return number.description.utf8.count
    }

    static func byteCount(ofString string: String) -> Int {
        var text = string
        return text.withUTF8 { utf8 in
            var total = 2 + utf8.count
            for byte in utf8 where needsEscape(byte) {
                total += shortEscape(byte) != 0 ? 1 : 5
            }
            return total
        }
    }
}

extension JSONValue {
    /// Appends the compact, deterministic JSON text of this value to `out` (see `JSONWriter`
    /// rules: sorted keys, integers without fraction, shortest round-trip doubles).
    public func serialize(into out: inout [UInt8]) {
        JSONWriter.write(self, into: &out)
    }

    /// The compact, deterministic JSON text of this value as UTF-8 bytes.
    public func serializedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        JSONWriter.write(self, into: &out)
        return out
    }

    /// The exact length in bytes of `serializedBytes()`, computed without producing them.
    public var serializedByteCount: Int {
        JSONWriter.byteCount(of: self)
    }
}
