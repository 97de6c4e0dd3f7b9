import Foundation
import Testing
import TandemProtocol
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Who may do what, on every path, against the real `tandem serve` binary: each role (and a removed guest and
/// host) on each path of the socket, the rooms API, invitations and host control. The table is written out
/// here, apart from the code that decides, so that a change of rule shows as a change of this table.
@Suite(.serialized) struct AuthorizationMatrixProcessTests {
    static let secret = "authorization-matrix-test"

    /// The paths, in the order each row runs them (the delete last: it takes the room away).
    enum Path: String, CaseIterable {
        case join, read, history, state, write, createInvite, listInvites, revokeInvite, remove, listRemoved, readmit, delete
    }

    /// Who asks.
    enum Who: String, CaseIterable {
        case host, guest, viewer, backend, stranger, removedGuest, removedHost, expired
    }

    /// The expected answer of each path: an HTTP status, or for `join` the close code (0 for a welcome).
    static let expected: [Who: [Path: Int]] = [
        .host: [.join: 0, .read: 200, .history: 200, .state: 200, .write: 200, .createInvite: 201, .listInvites: 200,
                .revokeInvite: 200, .remove: 200, .listRemoved: 200, .readmit: 200, .delete: 200],
        .guest: [.join: 0, .read: 200, .history: 200, .state: 200, .write: 200, .createInvite: 403, .listInvites: 403,
                 .revokeInvite: 403, .remove: 403, .listRemoved: 403, .readmit: 403, .delete: 403],
        .viewer: [.join: 0, .read: 200, .history: 200, .state: 200, .write: 403, .createInvite: 403, .listInvites: 403,
                  .revokeInvite: 403, .remove: 403, .listRemoved: 403, .readmit: 403, .delete: 403],
        // A backend's token: every room over HTTP, never the socket, never invitations.
        .backend: [.join: 4003, .read: 200, .history: 200, .state: 200, .write: 200, .createInvite: 403, .listInvites: 403,
                   .revokeInvite: 403, .remove: 200, .listRemoved: 200, .readmit: 200, .delete: 200],
        // A host of another room: nothing here (its invitations act on its own room, so they are not asked).
        .stranger: [.read: 403, .history: 403, .state: 403, .write: 403, .revokeInvite: 404, .remove: 403, .listRemoved: 403,
                    .readmit: 403, .delete: 403],
        .removedGuest: [.join: 4003, .read: 403, .history: 403, .state: 403, .write: 403, .createInvite: 403, .listInvites: 403,
                        .revokeInvite: 403, .remove: 403, .listRemoved: 403, .readmit: 403, .delete: 403],
        // A host's token past its exp: refused before anything else is looked at.
        .expired: [.join: 4001, .read: 401, .history: 401, .state: 401, .write: 401, .createInvite: 401, .listInvites: 401,
                   .revokeInvite: 401, .remove: 401, .listRemoved: 401, .readmit: 401, .delete: 401],
        .removedHost: [.join: 4003, .read: 403, .history: 403, .state: 403, .write: 403, .createInvite: 403, .listInvites: 403,
                       .revokeInvite: 403, .remove: 403, .listRemoved: 403, .readmit: 403, .delete: 403],
    ]

    @Test func everyRoleOnEveryPathGetsWhatTheSecurityModelSays() async throws {
        let served = try await ServedProcess(secret: Self.secret)
        defer { served.stop() }
        let (syncURL, group) = (served.syncURL, served.group)
        let tokens: [Who: String] = [
            .host: served.token("alice", role: .host), .guest: served.token("gus", role: .guest), .viewer: served.token("vera", role: .viewer),
            .backend: served.token("backend", room: TokenClaims.anyRoom, role: .host), .stranger: served.token("eve", room: "attic", role: .host),
            .removedGuest: served.token("mallory", role: .guest), .removedHost: served.token("oscar", role: .host),
            .expired: served.token("alice", role: .host, lifetime: -1),
        ]
        func call(_ method: String, _ path: String, _ who: String, json: String? = nil) async throws -> (Int, JSONValue?) {
            try await served.call(method, path, token: who, json: json)
        }
        let host = try #require(tokens[.host])
        for removed in ["mallory", "oscar"] {
            #expect(try await call("POST", "/v1/rooms/lobby/remove", host, json: #"{"user":"\#(removed)"}"#).0 == 200)
        }

        var answers: [Who: [Path: Int]] = [:]
        for who in Who.allCases {
            let mine = try #require(tokens[who])
            // Each row starts from a room with one patch and one live invitation.
            #expect(try await call("POST", "/v1/rooms/lobby/patch", host, json: #"{"ops":[{"op":"set","path":"/row","value":"\#(who)"}]}"#).0 == 200)
            let (_, created) = try await call("POST", "/v1/invites", host, json: "{}")
            let code = try #require(created?["code"]?.stringValue)
            var row: [Path: Int] = [:]
            for path in Path.allCases where Self.expected[who]?[path] != nil {
                switch path {
                case .join:
                    let peer = try await ProtocolClient.connect(syncURL, loop: group.next())
                    try await peer.send(.hello(Hello(token: mine, client: "matrix-\(who)")))
                    if case .welcome? = await peer.next(timeout: .seconds(30)) {
                        row[path] = 0
                        await peer.socket.close()
                    } else {
                        row[path] = Int(await peer.closeCode(timeout: .seconds(30)) ?? 0)
                    }
                case .read: row[path] = try await call("GET", "/v1/rooms/lobby", mine).0
                case .history: row[path] = try await call("GET", "/v1/rooms/lobby/history", mine).0
                case .state: row[path] = try await call("GET", "/v1/rooms/lobby/state?rev=1", mine).0
                case .write: row[path] = try await call("POST", "/v1/rooms/lobby/patch", mine, json: #"{"ops":[{"op":"set","path":"/w","value":1}]}"#).0
                case .createInvite: row[path] = try await call("POST", "/v1/invites", mine, json: "{}").0
                case .listInvites: row[path] = try await call("GET", "/v1/invites", mine).0
                case .revokeInvite: row[path] = try await call("DELETE", "/v1/invites/\(code)", mine).0
                case .remove: row[path] = try await call("POST", "/v1/rooms/lobby/remove", mine, json: #"{"user":"nobody"}"#).0
                case .listRemoved: row[path] = try await call("GET", "/v1/rooms/lobby/removed", mine).0
                case .readmit: row[path] = try await call("POST", "/v1/rooms/lobby/readmit", mine, json: #"{"user":"nobody"}"#).0
                case .delete: row[path] = try await call("DELETE", "/v1/rooms/lobby", mine).0
                }
            }
            answers[who] = row
            #expect(row == Self.expected[who], "\(who): \(row.sorted { $0.key.rawValue < $1.key.rawValue })")
        }
        // The removed stay removed until a host readmits them, and only then come back.
        #expect(try await call("POST", "/v1/rooms/lobby/readmit", host, json: #"{"user":"mallory"}"#).0 == 200)
        #expect(try await call("GET", "/v1/rooms/lobby", try #require(tokens[.removedGuest])).0 == 200)
        #expect(answers.count == Who.allCases.count)
    }
}
