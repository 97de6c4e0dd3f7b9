/// One argument of a Redis command: binary-safe bytes, written from a string or integer literal.
public struct RedisArgument: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// The argument's bytes as sent.
    public var bytes: [UInt8]

    /// An argument holding `bytes` unchanged.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// An argument holding the UTF-8 bytes of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// An argument holding the decimal text of `number`.
    public init(_ number: Int64) { self.bytes = Array(String(number).utf8) }

    /// A string literal argument.
    public init(stringLiteral value: String) { self.init(value) }

    /// An integer literal argument.
    public init(integerLiteral value: Int64) { self.init(value) }
}
