/// An ordered list of HTTP header fields with case-insensitive name lookup (RFC 9110 §5.1).
///
/// Order and duplicates are kept as received, because some fields may repeat and their
/// order matters when their values are joined.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    package struct Field: Sendable, Equatable {
        /// The field name as written (compare case-insensitively).
        package var name: String
        /// The field value with surrounding whitespace removed.
        package var value: String

        /// Creates a field.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Creates headers from `(name, value)` pairs, in order.
    package init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from a literal, in the literal's order.
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields (repeated names count once per occurrence).
    package var count: Int { fields.count }

    /// Iterates the fields in order.
    package func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The value of the first field named `name` (case-insensitive), or nil.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// All values of fields named `name`, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// The comma-separated list elements of every field named `name`, trimmed, empty ones
    /// dropped (RFC 9110 §5.6.1), in order.
    package func listElements(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { HTTPHeaders.trimmed(Substring($0)) }.filter { !$0.isEmpty }
        }
    }

    /// True when the comma-separated list in the fields named `name` contains `token`,
    /// compared case-insensitively (e.g. `Connection: keep-alive, Upgrade` contains `upgrade`).
    package func containsToken(_ token: String, in name: String) -> Bool {
        listElements(for: name).contains { Self.sameName($0, token) }
    }

    /// Appends a field, keeping any existing ones with the same name.
    package mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with a single one, or appends it.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field named `name`.
    package mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// True when a field named `name` is present.
    package func contains(name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Case-insensitive comparison of ASCII names and tokens.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }

    /// `text` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    static func trimmed(_ text: Substring) -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
              let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(text[first...last])
    }
}
