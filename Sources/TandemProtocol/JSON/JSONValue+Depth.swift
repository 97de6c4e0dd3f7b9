extension JSONValue {
    /// How many containers deep this value nests: 0 for a scalar, 1 for `{}`, `[]` or a container of
    /// scalars, one more for each level below.
    public var depth: Int { depth(exceeding: .max) ?? .max }

    /// The nesting depth, or `nil` as soon as it is known to exceed `limit`. The walk stops at the
    /// first container past the limit, so checking a huge or very deep value against a small limit
    /// costs at most what lies within the limit.
    public func depth(exceeding limit: Int) -> Int? {
        switch self {
        case .null, .bool, .number, .string:
            return 0
        case .array(let elements):
            guard limit >= 1 else { return nil }
            var deepest = 0
            for element in elements {
                guard let inner = element.depth(exceeding: limit - 1) else { return nil }
                deepest = max(deepest, inner)
            }
            return deepest + 1
        case .object(let members):
            guard limit >= 1 else { return nil }
            var deepest = 0
            for value in members.values {
                guard let inner = value.depth(exceeding: limit - 1) else { return nil }
                deepest = max(deepest, inner)
            }
            return deepest + 1
        }
    }
}

extension JSONValue {
    /// The nesting limit for documents and patches read back from storage or a cluster's log. Higher
    /// than any `PatchLimits.maxDepth`, because a document stored before its room's limit shrank (or
    /// before there was one) must still load; bounded, because parsing, applying and writing recurse
    /// once per level and must stay well inside a 512 KiB thread stack.
    public static let storedMaxDepth = 512

    /// Parses stored JSON (a snapshot, a logged patch's ops) with `storedMaxDepth`.
    public static func parseStored(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        try parse(bytes, maxDepth: storedMaxDepth)
    }
}
