/// Incremental UTF-8 validator (RFC 3629): feed a text message in pieces, split anywhere,
/// and learn as early as possible that it can no longer become valid.
///
/// Rejects overlong forms, surrogates (U+D800–U+DFFF) and code points above U+10FFFF. A
/// prefix is rejected as soon as its first impossible byte is seen ("fail fast"), which is what
/// RFC 6455 §8.1 asks of a receiver of text frames. Once invalid, it stays invalid.
package struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected for the current code point.
    private var remaining: UInt8 = 0
    /// Allowed range of the next continuation byte; narrower than 0x80...0xBF only right
    /// after the lead bytes E0, ED, F0 and F4, which is how overlongs and surrogates are excluded.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var failed = false

    /// Creates a validator at the start of a text.
    package init() {}

    /// True when everything fed so far is valid and ends on a code point boundary, i.e. the
    /// text may end here.
    package var isComplete: Bool { !failed && remaining == 0 }

    /// True once an invalid byte has been seen.
    package var hasFailed: Bool { failed }

    /// Forgets everything fed so far, ready for the next text.
    package mutating func reset() {
        self = UTF8Validator()
    }

    /// Feeds the next piece; returns false as soon as the text so far cannot be a prefix of
    /// valid UTF-8. Pieces may split code points anywhere.
    @discardableResult
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !failed else { return false }
        let count = bytes.count
        var index = 0
        while index < count {
            if remaining == 0 {
                // ASCII runs, eight bytes per step: the common case for JSON text.
                while index &+ 8 <= count {
                    let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index &+= 8
                }
                guard index < count else { break }
                let byte = bytes[index]
                index &+= 1
                if byte < 0x80 { continue }
                if !startSequence(lead: byte) {
                    failed = true
                    return false
                }
            } else {
                let byte = bytes[index]
                index &+= 1
                guard byte >= lower && byte <= upper else {
                    failed = true
                    return false
                }
                remaining &-= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Feeds the next piece from an array; see the buffer-pointer `validate(_:)`.
    @discardableResult
    package mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// True when `bytes` is, on its own, complete valid UTF-8.
    package static func isValid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }

    private mutating func startSequence(lead: UInt8) -> Bool {
        switch lead {
        case 0xC2...0xDF: expect(1, 0x80, 0xBF)
        case 0xE0: expect(2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
        case 0xED: expect(2, 0x80, 0x9F)
        case 0xF0: expect(3, 0x90, 0xBF)
        case 0xF1...0xF3: expect(3, 0x80, 0xBF)
        case 0xF4: expect(3, 0x80, 0x8F)
        default: return false
        }
        return true
    }

    private mutating func expect(_ continuationCount: UInt8, _ low: UInt8, _ high: UInt8) {
        remaining = continuationCount
        lower = low
        upper = high
    }
}
