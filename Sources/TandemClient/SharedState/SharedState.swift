import Foundation
import TandemProtocol

/// Typed access to the shared JSON document: reads decode the app's `Codable` value, and a
/// mutation of that value becomes the minimal patch ops by diffing JSON forms.
///
/// Fields the app's type does not know are preserved: ops are computed between the typed
/// projections of the old and new value, so paths the type never encodes are never touched.
/// Fields missing from the document (a fresh room) read as the `defaultValue`'s.
public struct SharedState<Value: Codable & Equatable & Sendable>: Sendable {
    /// The value whose fields stand in for fields missing from the document.
    public let defaultValue: Value
    private let defaultJSON: JSONValue

    /// Creates a typed view with `defaultValue` for missing fields.
    /// - Throws: `SharedStateError.encoding` when the value does not encode to a JSON object.
    public init(defaultValue: Value) throws(SharedStateError) {
        self.defaultValue = defaultValue
        defaultJSON = try Self.encode(defaultValue)
    }

    /// The typed value of `document` (missing fields from `defaultValue`).
    /// - Throws: `SharedStateError.decoding` when a field has a type the app's type cannot read.
    public func value(in document: Document) throws(SharedStateError) -> Value {
        try value(of: document.root)
    }

    /// The typed value of a state as JSON, such as `SyncSnapshot.state` (missing fields from `defaultValue`).
    /// - Throws: `SharedStateError.decoding` when a field has a type the app's type cannot read.
    public func value(of json: JSONValue) throws(SharedStateError) -> Value {
        let merged = Self.overlay(json, on: defaultJSON)
        do {
            return try JSONValueDecoder().decode(Value.self, from: merged)
        } catch {
            throw .decoding(String(describing: error))
        }
    }

    /// The fields `defaultValue` has and `json` lacks, as the locations to add and their default values,
    /// outermost first: members missing from an object of the state (whole, even when they are objects
    /// themselves), looking inside the objects both have. Empty when the state has every field.
    public func missingFields(in json: JSONValue) -> [(path: JSONPointer, value: JSONValue)] {
        var missing: [(path: JSONPointer, value: JSONValue)] = []
        func walk(_ present: JSONValue, _ defaults: JSONValue, at path: JSONPointer) {
            guard case .object(let members) = present, case .object(let defaultMembers) = defaults else { return }
            for (key, fallback) in defaultMembers.sorted(by: { $0.key < $1.key }) {
                let child = path.appending(key)
                if let value = members[key] {
                    walk(value, fallback, at: child)
                } else {
                    missing.append((child, fallback))
                }
            }
        }
        walk(json, defaultJSON, at: .root)
        return missing
    }

    /// The minimal ops that turn `old` into `new` (empty when they encode the same).
    public func changes(from old: Value, to new: Value) throws(SharedStateError) -> [PatchOp] {
        PatchOp.diff(from: try Self.encode(old), to: try Self.encode(new))
    }

    /// Reads the value of `document`, lets `body` mutate it, and returns the ops of the mutation.
    public func mutation(of document: Document, _ body: (inout Value) -> Void) throws(SharedStateError) -> [PatchOp] {
        let old = try value(in: document)
        var new = old
        body(&new)
        return try changes(from: old, to: new)
    }

    private static func encode(_ value: Value) throws(SharedStateError) -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValueEncoder().encode(value)
        } catch {
            throw .encoding(String(describing: error))
        }
        guard case .object = json else { throw .encoding("\(Value.self) must encode to a JSON object (the shared state is one)") }
        return json
    }

    /// `top` with the members it lacks taken from `base`, recursively for objects.
    private static func overlay(_ top: JSONValue, on base: JSONValue) -> JSONValue {
        guard case .object(var members) = top, case .object(let defaults) = base else { return top }
        for (key, value) in defaults {
            if let present = members[key] {
                members[key] = overlay(present, on: value)
            } else {
                members[key] = value
            }
        }
        return .object(members)
    }
}

/// Why a typed read or write of the shared state failed.
public enum SharedStateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document holds a field the app's type cannot decode.
    case decoding(String)
    /// The app's value does not encode to a JSON object.
    case encoding(String)

    /// A message naming the fix.
    public var description: String {
        switch self {
        case .decoding(let reason): "the shared state does not match the app's type: \(reason); check the field types agreed with the other clients"
        case .encoding(let reason): "the app's state cannot be shared: \(reason)"
        }
    }
}
