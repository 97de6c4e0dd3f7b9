/// The shape of an invitation code, which the server, `tandem join` and the browser page all check the same
/// way: decimal digits, as many as the server was configured to make (`--invite-code-length`).
public enum InvitationCode {
    /// The lengths a server may make codes of; 6 by default. Each digit more makes a guess ten times less
    /// likely to hit.
    public static let lengths = 6...12

    /// The length a server makes when not told otherwise.
    public static let defaultLength = 6

    /// Whether `code` has the shape of an invitation code of any length a server may make.
    public static func isWellFormed(_ code: String) -> Bool {
        lengths.contains(code.utf8.count) && code.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
