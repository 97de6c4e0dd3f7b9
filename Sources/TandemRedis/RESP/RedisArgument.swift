/// One argument of a Redis command: binary-safe bytes, written from a string or integer literal.
package struct RedisArgument: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// The argument's bytes as sent.
    package var bytes: [UInt8]

    /// An argument holding `bytes` unchanged.
    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// An argument holding the UTF-8 bytes of `string`.
    package init(_ string: String) { self.bytes = Array(string.utf8) }

    /// An argument holding the decimal text of `number`.
    package init(_ number: Int64) { self.bytes = Array(String(number).utf8) }

    /// A string literal argument.
    package init(stringLiteral value: String) { self.init(value) }

    /// An integer literal argument.
    package init(integerLiteral value: Int64) { self.init(value) }
}
