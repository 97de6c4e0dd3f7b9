import Foundation

/// Why a `Codable` value could not be converted to or from a `JSONValue`.
public enum JSONValueCodingError: Error, Sendable, CustomStringConvertible {
    /// The value could not be encoded (for example a non-finite `Double`); `reason` says why.
    case encodingFailed(String)
    /// The JSON value does not have the shape the `Decodable` type expects; `reason` says where.
    case decodingFailed(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .encodingFailed(let reason): "cannot encode the value as JSON: \(reason)"
        case .decodingFailed(let reason): "the JSON value does not match the expected type: \(reason)"
        }
    }
}

/// Converts an app's `Encodable` value (such as its page state) into a `JSONValue`.
///
/// Implementation choice: the value goes through Foundation's `JSONEncoder` to bytes and then
/// through Tandem's strict parser. That keeps every `Codable` rule of `JSONEncoder` (keyed and
/// unkeyed containers, `superEncoder`, nested `Codable` types, key strategies) exactly as apps
/// know it, at the cost of one extra text round; conversions happen at the app boundary, not
/// per message. Integers beyond ±2^53 lose precision because `JSONValue` numbers are doubles.
public struct JSONValueEncoder: Sendable {
    /// How `Date` values are written; defaults to `JSONEncoder`'s default.
    public var dateEncodingStrategy: JSONEncoder.DateEncodingStrategy = .deferredToDate
    /// How coding keys are mapped to member names.
    public var keyEncodingStrategy: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys

    /// Creates an encoder with `JSONEncoder`'s default strategies.
    public init() {}

    /// Encodes `value` into a `JSONValue`.
    public func encode(_ value: some Encodable) throws(JSONValueCodingError) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = dateEncodingStrategy
        encoder.keyEncodingStrategy = keyEncodingStrategy
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .encodingFailed(String(describing: error))
        }
        do {
            return try JSONValue.parse(data, maxDepth: .max)
        } catch {
            throw .encodingFailed(error.description)
        }
    }
}

/// Converts a `JSONValue` into an app's `Decodable` value (such as its page state).
///
/// Goes through Tandem's serializer and Foundation's `JSONDecoder` (see `JSONValueEncoder`
/// for why). Members the type does not declare are ignored, as `JSONDecoder` does.
public struct JSONValueDecoder: Sendable {
    /// How `Date` values are read; defaults to `JSONDecoder`'s default.
    public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .deferredToDate
    /// How member names are mapped to coding keys.
    public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys

    /// Creates a decoder with `JSONDecoder`'s default strategies.
    public init() {}

    /// Decodes a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONValueCodingError) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = dateDecodingStrategy
        decoder.keyDecodingStrategy = keyDecodingStrategy
        do {
            return try decoder.decode(type, from: Data(value.serializedBytes()))
        } catch {
            throw .decodingFailed(String(describing: error))
        }
    }
}
