import TandemProtocol

extension DoctorFinding {
    /// The finding as JSON for CI: `{"kind","target","message","paths","fix","line"}` (`target` and
    /// `line` null when the finding has none).
    public var jsonValue: JSONValue {
        .object([
            "kind": .string(kind.rawValue),
            "target": target.map(JSONValue.string) ?? .null,
            "message": .string(message),
            "paths": .array(paths.map { .array($0.map(JSONValue.string)) }),
            "fix": .string(fix),
            "line": line.map { .number(Double($0)) } ?? .null,
        ])
    }
}
