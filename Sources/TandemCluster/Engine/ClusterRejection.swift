import TandemProtocol

/// Carries a reject's code through the sequencer script and back, as text: every reason is
/// `code␟message`, the node's own verdicts and the script's structural checks alike, so the node reads
/// the code, never guesses it from the message.
enum ClusterRejection {
    private static let separator: Character = "\u{1F}"

    static func encode(_ error: PatchError) -> String {
        encode(code: error.code, message: error.description)
    }

    /// A rejection as the append script carries it, to and from Redis: the code's wire value, U+001F, the
    /// message (the script's own `rejection` builds the same form).
    static func encode(code: RejectCode, message: String) -> String {
        "\(code.wireValue)\(separator)\(message)"
    }

    /// The code and message of an encoded rejection. Every producer encodes; a reason without a code is
    /// read as `invalid_op` with the whole text as its message.
    static func decode(_ reason: String) -> (code: RejectCode, message: String) {
        guard let index = reason.firstIndex(of: separator) else { return (.invalidOp, reason) }
        return (RejectCode(wireValue: String(reason[..<index])), String(reason[reason.index(after: index)...]))
    }
}
