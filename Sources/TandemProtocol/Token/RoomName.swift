import Foundation

/// The rule every room name obeys, wherever it enters: a token's `room` claim, a URL of the HTTP API, a
/// command-line option.
///
/// A room name is compared byte for byte everywhere — in memory, in storage, in Redis keys. Swift's
/// `String` equality is canonical equivalence (`"cafe\u{301}" == "café"`) while storage and Redis
/// compare bytes, so two spellings of one name would reach the same room on one path and two rooms on
/// another. Names are therefore refused unless they are in Unicode Normalization Form C: every
/// canonically equivalent pair of accepted names is then the same bytes, and each rule agrees.
public enum RoomName {
    /// The longest name, in UTF-8 bytes.
    public static let maxBytes = 256

    /// Checks that `name` may name one concrete room.
    /// - Throws: `RoomNameError` saying what to change.
    public static func check(_ name: String) throws(RoomNameError) {
        guard !name.isEmpty else { throw .empty }
        guard name != TokenClaims.anyRoom else { throw .wildcard }
        guard name.utf8.count <= maxBytes else { throw .tooLong(bytes: name.utf8.count) }
        if let scalar = name.unicodeScalars.first(where: isControl) { throw .controlCharacter(scalar.value) }
        guard isNFC(name) else { throw .notNFC }
    }

    /// Whether `name` is in Normalization Form C (ASCII always is).
    static func isNFC(_ name: String) -> Bool {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        return name.precomposedStringWithCanonicalMapping.utf8.elementsEqual(name.utf8)
    }

    /// C0, DEL and C1 controls, and the line and paragraph separators: nothing a name needs, and each can
    /// shape a log line or a header.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

/// Why a string cannot name a room.
public enum RoomNameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is empty.
    case empty
    /// The name is `*`, which a backend's token uses for every room.
    case wildcard
    /// The name is longer than `RoomName.maxBytes`.
    case tooLong(bytes: Int)
    /// The name holds a control character (its scalar value).
    case controlCharacter(UInt32)
    /// The name is not in Unicode Normalization Form C.
    case notNFC

    /// What to change.
    public var description: String {
        switch self {
        case .empty: "a room name cannot be empty"
        case .wildcard: "\"*\" is not a room name: it stands for every room in a backend's token"
        case .tooLong(let bytes): "a room name is at most \(RoomName.maxBytes) UTF-8 bytes; this one has \(bytes)"
        case .controlCharacter(let value): "a room name cannot hold control characters (U+\(String(value, radix: 16, uppercase: true)))"
        case .notNFC:
            "a room name must be in Unicode Normalization Form C (names are compared byte for byte); "
                + "normalize it first, e.g. with String.precomposedStringWithCanonicalMapping"
        }
    }
}
