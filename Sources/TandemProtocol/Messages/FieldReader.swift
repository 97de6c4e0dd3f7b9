/// Typed access to the members of a decoded message object, naming the full field path in
/// every error. Absent and `null` members count as missing.
struct FieldReader {
    let members: [String: JSONValue]
    let prefix: String

    init(_ members: [String: JSONValue], prefix: String = "") {
        self.members = members
        self.prefix = prefix
    }

    func name(_ key: String) -> String { prefix + key }

    func has(_ key: String) -> Bool {
        if let value = members[key], !value.isNull { return true }
        return false
    }

    func value(_ key: String) throws(MessageDecodingError) -> JSONValue {
        guard let value = members[key], !value.isNull else { throw .missingField(name(key)) }
        return value
    }

    /// Any JSON value, `null` included; only absence is an error.
    func anyValue(_ key: String) throws(MessageDecodingError) -> JSONValue {
        guard let value = members[key] else { throw .missingField(name(key)) }
        return value
    }

    func string(_ key: String) throws(MessageDecodingError) -> String {
        guard case .string(let text) = try value(key) else { throw .invalidField(name(key), expected: "a string") }
        return text
    }

    func nonEmptyString(_ key: String) throws(MessageDecodingError) -> String {
        let text = try string(key)
        guard !text.isEmpty else { throw .invalidField(name(key), expected: "a non-empty string") }
        return text
    }

    func optionalString(_ key: String) throws(MessageDecodingError) -> String? {
        has(key) ? try string(key) : nil
    }

    func bool(_ key: String) throws(MessageDecodingError) -> Bool {
        guard case .bool(let flag) = try value(key) else { throw .invalidField(name(key), expected: "true or false") }
        return flag
    }

    func number(_ key: String) throws(MessageDecodingError) -> Double {
        guard case .number(let number) = try value(key) else { throw .invalidField(name(key), expected: "a number") }
        return number
    }

    /// A non-negative integer below 2^53 (revs, seqs, sizes, durations).
    func count(_ key: String) throws(MessageDecodingError) -> Int64 {
        let number = try number(key)
        guard number >= 0, number.rounded(.towardZero) == number, number < JSONWriter.exactIntegerLimit else {
            throw .invalidField(name(key), expected: "a non-negative integer")
        }
        return Int64(number)
    }

    func int(_ key: String) throws(MessageDecodingError) -> Int {
        Int(try count(key))
    }

    /// Any JSON object.
    func object(_ key: String) throws(MessageDecodingError) -> JSONValue {
        let value = try value(key)
        guard case .object = value else { throw .invalidField(name(key), expected: "an object") }
        return value
    }

    func optionalObject(_ key: String) throws(MessageDecodingError) -> JSONValue? {
        has(key) ? try object(key) : nil
    }

    func nested(_ key: String) throws(MessageDecodingError) -> FieldReader {
        guard case .object(let members) = try object(key) else { throw .invalidField(name(key), expected: "an object") }
        return FieldReader(members, prefix: name(key) + ".")
    }

    /// An array of objects, each handed to `read` with an indexed prefix such as `ops[2].`.
    func list<T>(_ key: String, _ read: (FieldReader) throws(MessageDecodingError) -> T) throws(MessageDecodingError) -> [T] {
        guard case .array(let elements) = try value(key) else { throw .invalidField(name(key), expected: "an array") }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let elementName = "\(name(key))[\(index)]"
            guard case .object(let members) = element else { throw .invalidField(elementName, expected: "an object") }
            result.append(try read(FieldReader(members, prefix: elementName + ".")))
        }
        return result
    }

    func role(_ key: String) throws(MessageDecodingError) -> Role {
        guard let role = Role(rawValue: try string(key)) else {
            throw .invalidField(name(key), expected: "\"host\", \"guest\" or \"viewer\"")
        }
        return role
    }

    /// Patch ops; an invalid op is reported as an invalid field naming the op.
    func ops(_ key: String) throws(MessageDecodingError) -> [PatchOp] {
        let list = try value(key)
        guard case .array = list else { throw .invalidField(name(key), expected: "an array of ops") }
        do {
            return try PatchOp.list(from: list)
        } catch {
            throw .invalidField("\(name(key))[\(error.opIndex ?? 0)]", expected: "a valid op (\(error.description))")
        }
    }
}
