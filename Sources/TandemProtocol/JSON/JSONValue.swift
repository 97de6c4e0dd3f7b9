/// A JSON value as RFC 8259 defines it: the currency of Tandem's shared page state and of every
/// wire message.
///
/// Numbers are `Double`, so integers are exact up to 2^53 (every `rev`, `seq` and timestamp
/// Tandem uses fits). Equality is structural; `-0.0 == 0.0`. Values are immutable and `Sendable`;
/// nested containers share storage copy-on-write, so copies are cheap until mutated.
public enum JSONValue: Sendable, Hashable {
    /// The JSON `null` literal.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A JSON number. Non-finite values cannot be written as JSON and serialize as `null`.
    case number(Double)
    /// A JSON string (any Unicode text).
    case string(String)
    /// An ordered JSON array.
    case array([JSONValue])
    /// A JSON object. Key order is not significant; serialization sorts keys by their UTF-8 bytes.
    case object([String: JSONValue])
}

extension JSONValue {
    /// An empty JSON object, the initial page state of every room.
    public static let emptyObject = JSONValue.object([:])

    /// The dictionary of an `object`, or `nil` for any other kind of value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an `array`, or `nil` for any other kind of value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The text of a `string`, or `nil` for any other kind of value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value of a `number`, or `nil` for any other kind of value.
    public var doubleValue: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    /// The value of a `bool`, or `nil` for any other kind of value.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// `true` only for the JSON `null` literal.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` of an object; `nil` when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` when out of range or when this is not an array.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The value a JSON Pointer refers to, or `nil` when the path does not exist.
    ///
    /// Array steps must be canonical indexes (`0`, `17`; not `01` or `-`).
    public subscript(pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact, deterministic JSON text of this value (keys sorted by UTF-8 bytes).
    public var description: String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }
}

// Deliberately not `ExpressibleByNilLiteral`: with it, `nil` in a `JSONValue?` context (a
// ternary, a default argument) can silently become `.null` instead of `Optional.none`.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates a `bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates a `number` from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// Creates a `number` from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// Creates a `string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an `array`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates an `object`; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
