import TandemProtocol

/// The server's rules the page applies before it asks the server (a name's length, an invitation code's
/// shape), so the page's checks cannot drift from the endpoints'. The index carries them as a JSON data
/// block (`<script id="page-settings" type="application/json">`, not executed, so the CSP is unaffected)
/// in place of its one `{{settings}}` marker; `app.mjs` reads them at load.
struct PageSettings: Sendable {
    /// The longest display name `POST /v1/invites/{code}/accept` takes, in UTF-8 bytes.
    var maxNameBytes = InviteRoutes.maxNameBytes
    /// The number of digits an invitation code may have.
    var invitationCodeLengths = InvitationCode.lengths

    /// The marker in `index.html` the settings replace.
    static let marker = Array("{{settings}}".utf8)

    /// The settings as JSON: numbers only, so nothing in it can end the data block early.
    var json: [UInt8] {
        JSONValue.object([
            "maxNameBytes": .number(Double(maxNameBytes)),
            "invitationCodeLengths": .array([.number(Double(invitationCodeLengths.lowerBound)), .number(Double(invitationCodeLengths.upperBound))]),
        ]).serializedBytes()
    }

    /// `document` with its one marker replaced by the settings. A document without exactly one marker is
    /// a build mistake, caught by the page's tests.
    func fill(_ document: [UInt8]) -> [UInt8] {
        guard let start = document.firstRange(of: Self.marker) else { return document }
        var filled = document
        filled.replaceSubrange(start, with: json)
        return filled
    }
}
