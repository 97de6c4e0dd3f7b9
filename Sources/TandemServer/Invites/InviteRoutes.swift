import Foundation
import TandemProtocol
import TandemWire

/// The HTTP API of invitations and host control (`/v1/invites…`, `/v1/rooms/{room}/remove`, `…/readmit`,
/// `…/removed`): asks ``RoomAccess`` who may act, decides with ``InviteBook`` / ``DenyList`` /
/// ``AcceptThrottle``, stores the change through the commit queue and answers only after the commit, so an
/// answered invitation or removal survives a crash.
///
/// Thread-safe; `handle` runs on an event-loop thread and never blocks it (storage work is queued).
final class InviteRoutes: Sendable {
    /// What the API needs from the server.
    struct Context: Sendable {
        var book: InviteBook
        var denials: DenyList
        var throttle: AcceptThrottle
        /// Invitations created per host and per room, in the same sliding windows as failed accepts.
        var creations: AcceptThrottle
        var tokens: TokenVerifier
        /// Who may do what in which room.
        var access: RoomAccess
        var commits: CommitQueue
        var registry: RoomRegistry
        var metrics: ServerMetrics
        var logger: Logger
        var configuration: ServerConfiguration
        /// Unix seconds.
        var now: @Sendable () -> Int64
        var random: any RandomByteSource
        /// Where removals are shared with the other nodes of a cluster (written there first); nil alone.
        var sharedRemovals: (any SharedRemovals)? = nil
        /// Where the server listens, for invitation URLs when no public URL is configured.
        var listening: ListeningAddress
        /// Told of accepted invitations and removals (nil without webhooks).
        var webhooks: (any WebhookReporter)? = nil
    }

    /// The longest display name an accept takes, in UTF-8 bytes (the browser page checks the same bound).
    static let maxNameBytes = 64

    private let context: Context

    init(context: Context) {
        self.context = context
    }

    /// Whether `path` belongs to this API (everything under `/v1/invites` and `/v1/rooms/`).
    static func handles(_ path: String) -> Bool {
        path == "/v1/invites" || path.hasPrefix("/v1/invites/") || path.hasPrefix("/v1/rooms/")
    }

    /// The largest body this API reads (the server's HTTP limit may be larger, for the rooms API).
    static let maxBodyBytes = 16 * 1024

    /// Answers one request of this API through `responder`, now or after a commit.
    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do throws(InviteAPIError) {
            guard request.body.count <= Self.maxBodyBytes else { throw .bodyTooLarge(limit: Self.maxBodyBytes) }
            try route(request, responder: responder)
        } catch {
            responder.respond(error.response)
        }
    }

    /// The endpoints, by path shape.
    private enum Endpoint {
        case invites
        case invite(String)
        case accept(String)
        case remove(String)
        case readmit(String)
        case removed(String)
    }

    private static func endpoint(_ path: String) -> Endpoint? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard parts.count >= 3, parts[0] == "v1", !parts[2].isEmpty else { return parts == ["v1", "invites"] ? .invites : nil }
        switch (parts[1], parts.count) {
        case ("invites", 3): return .invite(parts[2])
        case ("invites", 4) where parts[3] == "accept": return .accept(parts[2])
        case ("rooms", 4):
            let room = parts[2].removingPercentEncoding ?? parts[2]
            switch parts[3] {
            case "remove": return .remove(room)
            case "readmit": return .readmit(room)
            case "removed": return .removed(room)
            default: return nil
            }
        default: return nil
        }
    }

    private func route(_ request: HTTPRequest, responder: HTTPResponder) throws(InviteAPIError) {
        switch (Self.endpoint(request.path), request.method) {
        case (.invites?, "POST"): try create(request, responder)
        case (.invites?, "GET"): try list(request, responder)
        case (.invites?, _): throw .methodNotAllowed(allowed: "GET, POST")
        case (.invite(let code)?, "DELETE"): try revoke(code, request, responder)
        case (.invite?, _): throw .methodNotAllowed(allowed: "DELETE")
        case (.accept(let code)?, "POST"): try accept(code, request, responder)
        case (.accept?, _): throw .methodNotAllowed(allowed: "POST")
        case (.remove(let room)?, "POST"): try remove(room, request, responder)
        case (.remove?, _): throw .methodNotAllowed(allowed: "POST")
        case (.readmit(let room)?, "POST"): try readmit(room, request, responder)
        case (.readmit?, _): throw .methodNotAllowed(allowed: "POST")
        case (.removed(let room)?, "GET"): try listRemoved(room, request, responder)
        case (.removed?, _): throw .methodNotAllowed(allowed: "GET")
        case (nil, _): throw .notFound
        }
    }

    // MARK: - Endpoints

    private func create(_ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let host = try authorize(request, .invite)
        let now = context.now()
        let windows = ["host\u{0}\(host.room)\u{0}\(host.sub)", "room\u{0}\(host.room)"]
        if let wait = windows.compactMap({ context.creations.retryAfter(address: $0, now: now) }).max() {
            throw .creationThrottled(retryAfter: wait)
        }
        let body = try JSONRequestBody(request, allowed: ["role", "ttl", "uses"])
        let roleText = try body.string("role", maxBytes: 16) ?? Role.guest.rawValue
        guard roleText == Role.guest.rawValue || roleText == Role.viewer.rawValue else {
            throw .invalidField("\"role\" must be \"guest\" or \"viewer\"")
        }
        let settings = context.configuration
        let ttl = try body.integer("ttl", default: 1200, in: 1...max(1, settings.inviteMaxTTL.components.seconds))
        let uses = try body.integer("uses", default: 1, in: 1...Int64(settings.inviteMaxUses))
        let template = StoredInvite(code: "", room: host.room, role: roleText, createdBy: host.sub, createdAt: now,
                                    expiresAt: now + ttl, usesLeft: Int(uses))
        let invite: StoredInvite, forgotten: [String]
        do throws(InviteBook.ReserveError) {
            (invite, forgotten) = try context.book.reserve(template, maxLivePerRoom: settings.inviteMaxLivePerRoom, now: now, makeCode: makeCode)
        } catch {
            switch error {
            case .tooManyLive(let limit): throw .tooManyInvites(limit: limit)
            case .noFreeCode: throw .codeSpaceFull
            }
        }
        for window in windows { context.creations.recordFailure(address: window, now: now) }
        let url = inviteURL(code: invite.code)
        let writes = [StorageWrite.saveInvite(invite)] + forgotten.map { .deleteInvite(code: $0) }
        commit(writes, responder, undo: { [context] in context.book.restore(code: invite.code, to: nil) }) { [context] in
            context.metrics.invitesCreated.increment()
            context.logger.info("invite.created", LogField("room", invite.room), LogField("role", invite.role), LogField("by", invite.createdBy))
            return .json(status: 201, .object([
                "code": .string(invite.code), "room": .string(invite.room), "role": .string(invite.role),
                "expiresAt": .number(Double(invite.expiresAt)), "uses": .number(Double(invite.usesLeft)), "url": .string(url),
            ]))
        }
    }

    private func list(_ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let host = try authorize(request, .invite)
        let invites = context.book.live(room: host.room, now: context.now()).map { invite -> JSONValue in
            .object([
                "code": .string(invite.code), "role": .string(invite.role), "expiresAt": .number(Double(invite.expiresAt)),
                "usesLeft": .number(Double(invite.usesLeft)), "createdBy": .string(invite.createdBy),
            ])
        }
        responder.respond(.json(status: 200, .object(["room": .string(host.room), "invites": .array(invites)])))
    }

    private func revoke(_ code: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let host = try authorize(request, .invite)
        switch context.book.revoke(code, room: host.room, now: context.now()) {
        case .unknown: throw .unknownCode
        case .gone(let reason): throw .gone(reason)
        case .accepted(let invite):
            var previous = invite
            previous.revoked = false
            commit([.saveInvite(invite)], responder, undo: { [context, previous] in context.book.restore(code: code, to: previous) }) { [context] in
                context.logger.info("invite.revoked", LogField("room", invite.room), LogField("by", host.sub))
                return .json(status: 200, .object(["code": .string(code), "revoked": .bool(true)]))
            }
        }
    }

    private func accept(_ code: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let now = context.now()
        let address = responder.remoteAddress?.clientNetwork ?? "unknown"
        if let wait = context.throttle.retryAfter(address: address, now: now) {
            context.metrics.inviteFailures.increment("throttled")
            throw .throttled(retryAfter: wait)
        }
        let body = try JSONRequestBody(request, allowed: ["name"])
        let name = try body.string("name", maxBytes: Self.maxNameBytes)
        let outcome = InvitationCode.isWellFormed(code) ? context.book.accept(code, now: now) : .unknown
        switch outcome {
        case .unknown:
            failedAccept("unknown", address: address, now: now)
            throw .unknownCode
        case .gone(let reason):
            failedAccept(reason.rawValue, address: address, now: now)
            throw .gone(reason)
        case .accepted(let invite):
            var previous = invite
            previous.usesLeft += 1
            // Only a token for one concrete room is ever minted, whatever a stored invitation says.
            guard (try? RoomName.check(invite.room)) != nil else {
                context.book.restore(code: code, to: previous)
                throw .gone(.revoked)
            }
            let role = Role(rawValue: invite.role) ?? .guest
            let claims = TokenClaims(sub: guestID(admittedBy: code), room: invite.room, role: role,
                                     exp: now + context.configuration.inviteTokenTTL.components.seconds, name: name)
            commit([.saveInvite(invite)], responder, undo: { [context, previous] in context.book.restore(code: code, to: previous) }) { [context] in
                context.metrics.invitesAccepted.increment()
                context.webhooks?.inviteAccepted(room: invite.room, user: claims.sub, role: role, name: name)
                context.logger.info("invite.accepted", LogField("room", invite.room), LogField("user", claims.sub))
                return .json(status: 200, .object([
                    "token": .string(context.tokens.mint(claims)), "room": .string(claims.room), "role": .string(role.rawValue),
                    "user": .string(claims.sub), "expiresAt": .number(Double(claims.exp)),
                ]))
            }
        }
    }

    private func remove(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let host = try authorize(request, .moderate, room: room)
        let body = try JSONRequestBody(request, allowed: ["user"])
        guard let user = try body.string("user", maxBytes: 128) else { throw .invalidField("\"user\" is required: the user id to remove") }
        guard user != host.sub else { throw .invalidField("a host cannot remove themselves; close the connection instead") }
        shared(.save(StoredDenial(room: room, user: user, until: DenyList.untilReadmitted)), responder) { [self] _ in
            removeHere(user, from: room, by: host, responder)
        }
    }

    /// What a removal does on this node, once the cluster (if any) holds it: refuse, close, revoke, store.
    private func removeHere(_ user: String, from room: String, by host: TokenClaims, _ responder: HTTPResponder) {
        let now = context.now()
        // Deny first, then close: a join racing this request is either closed below or refused by the list.
        context.denials.deny(user, in: room, until: DenyList.untilReadmitted)
        context.webhooks?.removed(room: room, user: user, by: host.sub)
        let closed = context.registry.loadedRoom(room)?.removeUser(user, reason: "the host removed you from room '\(room)'") ?? 0
        // The door a guest came in by closes behind them: the invitation that admitted them is revoked.
        let revoked = context.book.live(room: room, now: now).filter { Self.admits(user, tag: guestTag($0.code)) }.compactMap { invite in
            if case .accepted(let done) = context.book.revoke(invite.code, room: room, now: now) { done } else { nil }
        }
        let ended = context.denials.expire(now: now).map { StorageWrite.deleteDenial(room: $0.room, user: $0.user) }
        let writes = [StorageWrite.saveDenial(StoredDenial(room: room, user: user, until: DenyList.untilReadmitted))]
            + revoked.map { StorageWrite.saveInvite($0) } + ended
        commit(writes, responder, undo: { [context, revoked] in
            _ = context.denials.readmit(user, in: room)
            for invite in revoked {
                var previous = invite
                previous.revoked = false
                context.book.restore(code: invite.code, to: previous)
            }
        }) { [context] in
            context.metrics.participantsRemoved.increment()
            context.logger.info("room.user_removed", LogField("room", room), LogField("user", user), LogField("by", host.sub),
                                LogField("connections", "\(closed)"), LogField("revoked", "\(revoked.count)"))
            return .json(status: 200, .object([
                "room": .string(room), "user": .string(user), "closed": .number(Double(closed)),
                "revoked": .array(revoked.map { .string($0.code) }),
            ]))
        }
    }

    private func readmit(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        let host = try authorize(request, .moderate, room: room)
        let body = try JSONRequestBody(request, allowed: ["user"])
        guard let user = try body.string("user", maxBytes: 128) else { throw .invalidField("\"user\" is required: the user id to readmit") }
        shared(.delete(room: room, user: user), responder) { [self] removedInCluster in
            readmitHere(user, to: room, by: host, removedInCluster: removedInCluster, responder)
        }
    }

    /// What a readmission does on this node, once the cluster (if any) dropped the removal. In a cluster the
    /// answer is the cluster's (`removedInCluster`: whether it held one), whatever this node's mirror held.
    private func readmitHere(_ user: String, to room: String, by host: TokenClaims, removedInCluster: Bool, _ responder: HTTPResponder) {
        let now = context.now()
        let wasRemoved = context.denials.deniedUntil(user, in: room, now: now)
        let readmitted = context.sharedRemovals == nil ? wasRemoved != nil : removedInCluster
        guard let until = wasRemoved, context.denials.readmit(user, in: room) else {
            return responder.respond(.json(status: 200, .object([
                "room": .string(room), "user": .string(user), "readmitted": .bool(readmitted),
            ])))
        }
        commit([.deleteDenial(room: room, user: user)], responder, undo: { [context] in
            context.denials.deny(user, in: room, until: until)
        }) { [context] in
            context.logger.info("room.user_readmitted", LogField("room", room), LogField("user", user), LogField("by", host.sub))
            return .json(status: 200, .object(["room": .string(room), "user": .string(user), "readmitted": .bool(readmitted)]))
        }
    }

    private func listRemoved(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(InviteAPIError) {
        _ = try authorize(request, .moderate, room: room)
        let users = context.denials.removed(in: room, now: context.now())
        responder.respond(.json(status: 200, .object(["room": .string(room), "users": .array(users.map { .string($0) })])))
    }

    // MARK: - Helpers

    /// A change of the removals the cluster shares.
    private enum SharedChange {
        case save(StoredDenial)
        case delete(room: String, user: String)
    }

    /// Makes `change` in the cluster's shared removals, then runs `next` with whether the cluster held the
    /// removal a `.delete` dropped; alone, runs `next(false)` at once. A failure answers 500 and changes nothing here.
    private func shared(_ change: SharedChange, _ responder: HTTPResponder, then next: @escaping @Sendable (Bool) -> Void) {
        guard let removals = context.sharedRemovals else { return next(false) }
        let logger = context.logger
        Task {
            do throws(SequencingError) {
                switch change {
                case .save(let denial):
                    try await removals.save(denial)
                    next(true)
                case .delete(let room, let user):
                    next(try await removals.delete(room: room, user: user))
                }
            } catch {
                logger.error("room.removal_store_failed", LogField("error", error.description))
                responder.respond(InviteAPIError.storage(error.description).response)
            }
        }
    }

    /// The claims of the request's bearer token, once `RoomAccess` allows them `action` in `room` (the
    /// token's own room when nil).
    private func authorize(_ request: HTTPRequest, _ action: RoomAccess.Action, room: String? = nil) throws(InviteAPIError) -> TokenClaims {
        try BearerToken.authorize(request, verifier: context.tokens, access: context.access, action, room: room)
    }

    /// The id of a guest the invitation `code` admits: `guest-`, the invitation's tag (8 hex digits) and 16
    /// random hex digits. The tag ties the guest to the door they came in by, without showing the code to
    /// the others who see the id.
    private func guestID(admittedBy code: String) -> String {
        "guest-" + guestTag(code) + Hex.lowercase(context.random.bytes(count: 8))
    }

    /// The tag of invitation `code` in its guests' ids: the start of an HMAC under the server's secret.
    private func guestTag(_ code: String) -> String {
        Hex.lowercase(Array(context.tokens.authenticationCode("invite-guest:" + code).prefix(4)))
    }

    /// Whether `user` is a guest admitted by the invitation whose tag is `tag`.
    static func admits(_ user: String, tag: String) -> Bool {
        user.utf8.count == 6 + 8 + 16 && user.hasPrefix("guest-") && user.utf8.dropFirst(6).prefix(8).elementsEqual(tag.utf8)
    }

    /// Stores `writes`, then answers with `success()`; on a storage failure runs `undo` and answers 500.
    private func commit(_ writes: [StorageWrite], _ responder: HTTPResponder, undo: @escaping @Sendable () -> Void,
                        success: @escaping @Sendable () -> HTTPResponse) {
        let logger = context.logger
        context.commits.write(writes) { result in
            switch result {
            case .success:
                responder.respond(success())
            case .failure(let error):
                undo()
                logger.error("invite.store_failed", LogField("error", error.description))
                responder.respond(InviteAPIError.storage(error.description).response)
            }
        }
    }

    private func failedAccept(_ reason: String, address: String, now: Int64) {
        context.throttle.recordFailure(address: address, now: now)
        context.metrics.inviteFailures.increment(reason)
    }

    /// `inviteCodeLength` decimal digits, uniformly from the injected random source (rejection sampling
    /// avoids modulo bias).
    private func makeCode() -> String {
        Self.code(length: context.configuration.inviteCodeLength, random: context.random)
    }

    /// A code of `length` digits drawn uniformly from `random`.
    static func code(length: Int, random: any RandomByteSource) -> String {
        var space: UInt64 = 1
        for _ in 0..<length { space *= 10 }
        // The largest multiple of `space` that 32 bits hold for 6 digits, 64 bits beyond: values at or above
        // it are drawn again, so every code is equally likely.
        let width = space <= 1_000_000 ? 4 : 8
        let range: UInt64 = width == 4 ? 1 << 32 : .max
        let limit = range - range % space
        while true {
            let value = random.bytes(count: width).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard value < limit else { continue }
            let text = String(value % space)
            return String(repeating: "0", count: length - text.count) + text
        }
    }

    /// Where a guest opens the invitation: the configured public URL, else the address the server listens
    /// on. Never the request's `Host` header, which whoever sends the request chooses.
    private func inviteURL(code: String) -> String {
        var base = context.configuration.publicURL ?? context.listening.baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return "\(base)/#invite=\(code)"
    }
}
