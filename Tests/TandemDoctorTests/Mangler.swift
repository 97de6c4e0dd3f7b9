@testable import TandemDoctor

/// Seeded mangling of a text for the readers' fuzz tests: characters replaced by, or inserted from,
/// `alphabet`, or dropped, a few per variant.
struct Mangler {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// `count` mangled variants of `text`, each read by `read`; returns how many it refused. A refusal
    /// must be a `DoctorInputError` with a line and a reason.
    mutating func refusals(of text: String, count: Int, alphabet: [Character], read: (String) throws(DoctorInputError) -> Void) -> Int {
        var refused = 0
        for _ in 0..<count {
            var characters = Array(text)
            for _ in 0..<(1 + next(4)) {
                let at = next(characters.count)
                switch next(3) {
                case 0: characters[at] = alphabet[next(alphabet.count)]
                case 1: characters.remove(at: at)
                default: characters.insert(alphabet[next(alphabet.count)], at: at)
                }
            }
            do throws(DoctorInputError) {
                try read(String(characters))
            } catch {
                if error.line >= 0 && !error.reason.isEmpty { refused += 1 }
            }
        }
        return refused
    }
}
