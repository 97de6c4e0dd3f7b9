import Testing
import TandemWire

/// The incremental UTF-8 validator against Swift's own UTF-8 decoding, for whole inputs and
/// for every split point.
@Suite struct UTF8ValidatorTests {
    @Test func acceptsValidTextOfEveryEncodedLength() {
        #expect(UTF8Validator.isValid(Array("ascii é € 𝄞 同步".utf8)))
        #expect(UTF8Validator.isValid([]))
    }

    @Test(arguments: [
        [UInt8(0xC0), 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xBF], [0xC2], [0xE1, 0x80], [0xF1, 0x80, 0x80], [0xC2, 0x41],
    ])
    func rejectsOverlongsSurrogatesOutOfRangeAndTruncations(bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
    }

    @Test func agreesWithSwiftDecodingOnRandomInputAtEverySplit() {
        var generator = SplitMix(seed: 0x7A4D)
        for _ in 0..<2000 {
            let length = Int(generator.next() % 12)
            // Bias towards bytes that form (or almost form) multi-byte sequences.
            let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
            for split in 0...bytes.count {
                var validator = UTF8Validator()
                let prefixOK = validator.validate(Array(bytes[..<split]))
                let restOK = prefixOK && validator.validate(Array(bytes[split...]))
                #expect((restOK && validator.isComplete) == expected, "\(bytes) split at \(split)")
            }
        }
    }

    @Test func failsFastOnTheFirstImpossibleByte() {
        var validator = UTF8Validator()
        let prefix = validator.validate([0xCE, 0xBA, 0xED])
        #expect(prefix)
        #expect(!validator.isComplete, "an unfinished sequence is not a complete text")
        let surrogate = validator.validate([0xA0])
        #expect(!surrogate, "ED A0 starts a surrogate")
        #expect(validator.hasFailed)
        let after = validator.validate([0x41])
        #expect(!after, "failure is permanent")
    }

    @Test func longASCIIRunsWithALateErrorAreRejected() {
        for position in [0, 7, 8, 9, 63, 64, 100] {
            var bytes = [UInt8](repeating: 0x61, count: 101)
            bytes[position] = 0xFF
            #expect(!UTF8Validator.isValid(bytes), "error at \(position)")
        }
        #expect(UTF8Validator.isValid([UInt8](repeating: 0x61, count: 101)))
    }

    @Test func resetStartsANewText() {
        var validator = UTF8Validator()
        validator.validate([0xFF])
        validator.reset()
        let valid = validator.validate([0x61])
        #expect(valid && validator.isComplete)
    }
}

/// A small deterministic generator (SplitMix64) so random-input tests are reproducible.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
