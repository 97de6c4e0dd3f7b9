import Testing
import TandemProtocol
import TandemServer
import TandemWire
@testable import TandemClient

@Suite struct InviteClientTests {
    private func baseURL(_ harness: SessionTestServer) -> String { "http://127.0.0.1:\(harness.server.port)" }

    @Test(arguments: HTTPKind.allCases)
    func aGuestJoinsWithTheTokenOfAnAcceptedInvitationAndTheHostRemovesThem(over http: HTTPKind) async throws {
        let harness = try SessionTestServer.start()
        let host = InviteClient(baseURL: baseURL(harness) + "/", token: harness.token(user: "alice"), transport: http.transport(group: harness.group))
        let invitation = try await host.createInvite(role: .guest, ttl: 300, uses: 1)
        #expect(invitation.code.count == 6 && invitation.usesLeft == 1)
        #expect(invitation.url == "\(baseURL(harness))/#invite=\(invitation.code)")
        #expect(try await host.listInvites().map(\.code) == [invitation.code])

        let guest = InviteClient(baseURL: baseURL(harness), transport: http.transport(group: harness.group))
        let accepted = try await guest.acceptInvite(code: invitation.code, name: "Bob")
        #expect(accepted.room == "lobby" && accepted.role == .guest)
        #expect(try await host.listInvites().isEmpty)

        let session = SyncSession(url: harness.server.syncURL, clientID: "bob-1", tokenProvider: accepted.tokenProvider, transport: WireTransport(group: harness.group))
        await session.start()
        #expect(await session.waitUntilConnected(timeout: .seconds(30)))
        try await session.apply([Fixtures.set("/guest", .string("hello"))])
        #expect(await session.drain(timeout: .seconds(30)))

        #expect(try await host.removeParticipant(accepted.user, from: "lobby") == 1)
        let refused = await eventually(timeout: .seconds(30)) {
            if case .closed(.refused(.forbidden)) = await session.state { true } else { false }
        }
        #expect(refused)
        await session.stop()
        #expect(try await host.removedParticipants(in: "lobby") == [accepted.user])
        #expect(try await host.readmitParticipant(accepted.user, to: "lobby"))
        #expect(try await host.removedParticipants(in: "lobby").isEmpty)
        #expect(try await !host.readmitParticipant(accepted.user, to: "lobby"))
        await harness.shutdown()
    }

    @Test(arguments: HTTPKind.allCases)
    func eachRefusalIsATypedError(over http: HTTPKind) async throws {
        let harness = try SessionTestServer.start()
        let host = InviteClient(baseURL: baseURL(harness), token: harness.token(user: "alice"), transport: http.transport(group: harness.group))
        let anonymous = InviteClient(baseURL: baseURL(harness), transport: http.transport(group: harness.group))
        let code = try await host.createInvite().code
        _ = try await anonymous.acceptInvite(code: code)

        await #expect(throws: InviteError.gone(reason: "used_up", message: "this invitation has been used already; ask the host for a new one")) {
            try await anonymous.acceptInvite(code: code)
        }
        let revocable = try await host.createInvite().code
        try await host.revokeInvite(code: revocable)
        await #expect { try await anonymous.acceptInvite(code: revocable) } throws: { error in
            if case InviteError.gone(reason: "revoked", _) = error { true } else { false }
        }
        await #expect { try await anonymous.createInvite() } throws: { error in
            if case InviteError.unauthorized = error { true } else { false }
        }
        let guestHost = InviteClient(baseURL: baseURL(harness), token: harness.token(user: "g", role: .guest), transport: http.transport(group: harness.group))
        await #expect { try await guestHost.createInvite() } throws: { error in
            if case InviteError.forbidden = error { true } else { false }
        }
        let forged = InviteClient(baseURL: baseURL(harness), token: "x.y.z", transport: http.transport(group: harness.group))
        await #expect { try await forged.listInvites() } throws: { error in
            if case InviteError.unauthorized = error { true } else { false }
        }
        await #expect { try await host.createInvite(ttl: 0) } throws: { error in
            if case InviteError.invalidRequest(status: 400, _) = error { true } else { false }
        }
        let unknown = code == "000001" ? "000002" : "000001"
        // The two 410s above were failed accepts too: eight more reach the limit of ten.
        for _ in 0..<8 {
            await #expect { try await anonymous.acceptInvite(code: unknown) } throws: { error in
                if case InviteError.notFound = error { true } else { false }
            }
        }
        await #expect { try await anonymous.acceptInvite(code: unknown) } throws: { error in
            if case InviteError.tooManyRequests(retryAfter: let seconds?, _) = error { (1...60).contains(seconds) } else { false }
        }
        await harness.stopServer()
        await #expect { try await anonymous.acceptInvite(code: code) } throws: { error in
            if case InviteError.transport = error { true } else { false }
        }
        await harness.shutdown()
    }

    @Test func statusesMapToTheirErrors() {
        func error(_ status: Int, _ body: String = #"{"error":"x","message":"m"}"#, headers: HTTPHeaders = [:]) -> InviteError {
            InviteClient.error(for: HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), json: try? JSONValue.parse(body))
        }
        #expect(error(413) == .invalidRequest(status: 413, message: "m"))
        #expect(error(415) == .invalidRequest(status: 415, message: "m"))
        #expect(error(404) == .notFound("m"))
        #expect(error(429, headers: ["Retry-After": "12"]) == .tooManyRequests(retryAfter: 12, message: "m"))
        #expect(error(503, "busy") == .server(status: 503, message: "busy"))
        #expect(InviteClient.escaped("a b/ü") == "a%20b%2F%C3%BC")
    }
}
