/// A failure as a vendor SDK reports it: a numeric code and a free-text description.
///
/// Adapters never let this escape to app code; an `ErrorTable` turns it into a domain error.
public struct SDKFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The vendor's error code.
    public var code: Int
    /// The vendor's description (empty when the SDK gave none).
    public var message: String

    /// Creates a failure; a `nil` description becomes empty.
    public init(code: Int, message: String?) {
        self.code = code
        self.message = message ?? ""
    }

    /// E.g. `SDK error 6014: not logged in`.
    public var description: String { message.isEmpty ? "SDK error \(code)" : "SDK error \(code): \(message)" }
}
