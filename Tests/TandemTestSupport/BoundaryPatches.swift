import TandemKit
import TandemProtocol

/// Random patches that push a room to the edges of its limits: values nested exactly as deep as the depth
/// limit allows, patches with the most ops, messages close to the largest size, a document filled towards
/// its size limit, and keys and numbers of the awkward kinds (empty, `~`, `/`, NUL, astral characters,
/// extreme and long numbers). Every patch is valid: the generator applies each one to its own model of the
/// document first, so a server must accept them all, and `document` is what every reader must end with.
public struct BoundaryPatches {
    /// The limits the patches respect.
    public let limits: SessionLimits
    /// Where the patches write (a top-level member, so an app's own state beside it is left alone).
    public let prefix: String
    /// The document after every patch generated so far.
    public private(set) var document: Document
    private var random: SeededRandom

    /// Keys of the awkward kinds JSON Pointer and JSON escaping must both get right.
    public static let keys: [String] = [
        "", "~", "/", "~0", "~1", "a/b~c", "\u{0}", "nul\u{0}in", "😀", "𝄞", "\u{10FFFF}", "é", "quote\"", "back\\slash",
        "\n\t", "k", "0", "01", "-", "1e0", String(repeating: "long", count: 40),
    ]

    /// Numbers at the edges of what a double holds, and some that print long.
    public static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.1, 1e308, -1e308, .leastNonzeroMagnitude, 2.2250738585072014e-308, 1.7976931348623157e308,
        9_007_199_254_740_994, 12_345_678_901_234_567_168, 123.456e-7, 1.0 / 3.0, 4_294_967_296,
    ]

    /// Creates a generator for a room with `limits`, writing under `/prefix`.
    public init(seed: UInt64, limits: SessionLimits, prefix: String = "edge") {
        self.limits = limits
        self.prefix = prefix
        document = Document()
        random = SeededRandom(seed: seed)
    }

    /// The next patch, or `nil` once the document is within a few percent of its size limit.
    public mutating func next() -> [PatchOp]? {
        guard document.byteCount < limits.maxDocument * 9 / 10 else { return nil }
        if random.next() % 200 == 0 {
            // The whole prefix replaced by an object as deep as the limit allows there.
            let replacement: [PatchOp] = [.set(JSONPointer(tokens: [prefix]), .object(["replaced": spine(depth: limits.maxDepth - 2)]))]
            if let applied = try? document.applying(replacement, limits: limits.patchLimits) {
                document = applied
                return replacement
            }
        }
        var ops: [PatchOp] = []
        var trial = document
        let style = random.next() % 4
        let wanted = style == 0 ? limits.maxOps : Int(random.next() % UInt64(min(limits.maxOps, 12))) + 1
        var attempts = 0
        while ops.count < wanted, attempts < wanted * 4 {
            attempts += 1
            let op = makeOp(deepest: style == 1, small: style == 0)
            guard let applied = try? trial.applying([op], limits: limits.patchLimits) else { continue }
            var message: [UInt8] = []
            ClientMessage.patch(seq: 1, ops: ops + [op]).encode(into: &message)
            guard message.count <= limits.maxMessage - 64 else { break }
            ops.append(op)
            trial = applied
        }
        guard !ops.isEmpty else { return next() }
        document = trial
        return ops
    }

    private mutating func makeOp(deepest: Bool, small: Bool) -> PatchOp {
        // One or two levels below the prefix, so the document grows; `next` replaces the prefix itself now and then.
        // Scalars go to a member of their own, so that a patch of many scalars does not wipe the big values.
        let pathLength = Int(random.next() % 2) + 1
        var tokens = small ? [prefix, "scalars"] : [prefix]
        for _ in 0..<pathLength { tokens.append(key()) }
        let budget = limits.maxDepth - tokens.count
        if random.next() % 25 == 0, pathLength > 0 { return .remove(JSONPointer(tokens: tokens)) }
        let value = deepest ? spine(depth: budget) : small ? scalar() : value(budget: min(budget, Int(random.next() % UInt64(budget + 1))))
        return .set(JSONPointer(tokens: tokens), value)
    }

    private mutating func key() -> String {
        let keys = Self.keys
        if random.next() % 4 == 0 { return "k\(random.next() % 50)" }
        return keys[Int(random.next() % UInt64(keys.count))]
    }

    private mutating func scalar() -> JSONValue {
        switch random.next() % 6 {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2, 3: return .number(Self.numbers[Int(random.next() % UInt64(Self.numbers.count))])
        case 4: return .string(String(repeating: key(), count: Int(random.next() % 16) + 1))
        default: return .string(key())
        }
    }

    /// A value exactly `depth` containers deep, with small side branches.
    private mutating func spine(depth: Int) -> JSONValue {
        guard depth > 0 else { return scalar() }
        let inner = spine(depth: depth - 1)
        if random.next() % 2 == 0 { return .array([scalar(), inner]) }
        return .object([key(): inner, "side": scalar()])
    }

    /// A random value at most `budget` containers deep and of at most a few hundred scalars.
    private mutating func value(budget: Int) -> JSONValue {
        var nodes = Int(random.next() % 3000) + 1
        return value(budget: budget, nodes: &nodes)
    }

    private mutating func value(budget: Int, nodes: inout Int) -> JSONValue {
        nodes -= 1
        guard budget > 0, nodes > 0, random.next() % 5 != 0 else { return scalar() }
        let count = Int(random.next() % 6)
        if random.next() % 2 == 0 {
            var elements: [JSONValue] = []
            for _ in 0..<count where nodes > 0 { elements.append(value(budget: budget - 1, nodes: &nodes)) }
            return .array(elements)
        }
        var members: [String: JSONValue] = [:]
        for _ in 0..<count where nodes > 0 { members[key()] = value(budget: budget - 1, nodes: &nodes) }
        return .object(members)
    }
}
