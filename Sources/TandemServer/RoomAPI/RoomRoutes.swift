import Foundation
import TandemProtocol
import TandemWire

/// The HTTP API of rooms for backends: `GET /v1/rooms/{room}` (state, rev, participants),
/// `GET /v1/rooms/{room}/history` (the stored patches, paged), `GET /v1/rooms/{room}/state?rev=N` (the
/// state right after rev N), `POST /v1/rooms/{room}/patch` (a write sequenced like a participant's,
/// answered once durable) and `DELETE /v1/rooms/{room}` (its connections closed with 4004, its state
/// and history removed).
///
/// Authorization: `Authorization: Bearer <token>` of the room or a backend's token (`room` "*", any room),
/// decided by `RoomAccess` on every request (a removed user is refused here as on the socket). A token of
/// another room is refused before the room is looked up, so the answer says nothing about whether that
/// room exists.
///
/// Thread-safe; `handle` runs on an event-loop thread and never blocks it (storage reads are queued).
final class RoomRoutes: Sendable {
    /// What the API needs from the server.
    struct Context: Sendable {
        var tokens: TokenVerifier
        /// Who may do what in which room.
        var access: RoomAccess
        /// How fast each user may change each room, over the socket and this API together.
        var writes: WriteAllowance
        /// Monotonic nanoseconds, for `writes`.
        var monotonicNow: @Sendable () -> Int64
        var commits: CommitQueue
        var registry: RoomRegistry
        var rooms: RoomSettings
        var configuration: ServerConfiguration
        /// Where rooms shared with other servers are read and deleted (a cluster's Redis); nil alone.
        var shared: (any SharedRooms)?
    }

    /// Patches per history page when the request names no `limit`, and the most it may name.
    static let defaultPageSize = 1_000
    static let maxPageSize = 10_000
    /// The most bytes of ops one history page carries: a page ends before the patch that would pass it
    /// (never before its first patch), and `next` leads on from there.
    static let maxPageBytes = 1 << 20
    /// The largest rev or count a request may name (what a JSON number holds exactly).
    private static let maxCount: Int64 = 9_007_199_254_740_991

    private let context: Context

    init(context: Context) {
        self.context = context
    }

    /// The endpoints, by path shape.
    private enum Endpoint {
        case room(String)
        case history(String)
        case state(String)
        case patch(String)
    }

    private static func endpoint(_ path: String) -> Endpoint? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard parts.count >= 3, parts.count <= 4, parts[0] == "v1", parts[1] == "rooms", !parts[2].isEmpty else { return nil }
        let room = parts[2].removingPercentEncoding ?? parts[2]
        switch parts.count == 4 ? parts[3] : nil {
        case nil: return .room(room)
        case "history"?: return .history(room)
        case "state"?: return .state(room)
        case "patch"?: return .patch(room)
        default: return nil
        }
    }

    /// Whether `path` is one of this API's (checked before the invitation API, which owns the rest of
    /// `/v1/rooms/`).
    static func handles(_ path: String) -> Bool { endpoint(path) != nil }

    /// Answers one request of this API through `responder`, now or after a storage read or a commit.
    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        do throws(RoomAPIError) {
            switch (Self.endpoint(request.path), request.method) {
            case (.room(let room)?, "GET"): try read(room, request, responder)
            case (.room(let room)?, "DELETE"): try delete(room, request, responder)
            case (.room?, _): throw .request(.methodNotAllowed(allowed: "GET, DELETE"))
            case (.history(let room)?, "GET"): try history(room, request, responder)
            case (.history?, _): throw .request(.methodNotAllowed(allowed: "GET"))
            case (.state(let room)?, "GET"): try state(room, request, responder)
            case (.state?, _): throw .request(.methodNotAllowed(allowed: "GET"))
            case (.patch(let room)?, "POST"): try write(room, request, responder)
            case (.patch?, _): throw .request(.methodNotAllowed(allowed: "POST"))
            case (nil, _): throw .request(.notFound)
            }
        } catch {
            responder.respond(error.response)
        }
    }

    // MARK: - Endpoints

    private func read(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(RoomAPIError) {
        _ = try authorize(request, .read, room: room)
        let answer: @Sendable (Room.Snapshot) -> Void = { head in
            responder.respond(.json(status: 200, .object([
                "room": .string(room), "epoch": .string(head.epoch), "rev": .number(Double(head.rev)), "state": head.state,
                "participants": .array(head.participants.map(\.jsonValue)),
            ])))
        }
        guard let shared = context.shared else { return head(of: room, withState: true, responder, answer: answer) }
        // Shared: what the store holds (a copy here may lag it), with who is connected here right now.
        let loaded = context.registry.loadedRoom(room)
        Task {
            do throws(SequencingError) {
                guard var snapshot = try await shared.room(room) else { return responder.respond(RoomAPIError.unknownRoom(room).response) }
                let here = loaded?.presentParticipants() ?? []
                let clients = Set(here.map(\.client))
                snapshot.participants = (here + snapshot.participants.filter { !clients.contains($0.client) }).sorted { $0.client < $1.client }
                answer(snapshot)
            } catch {
                responder.respond(RoomAPIError.failed(error.description).response)
            }
        }
    }

    private func history(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(RoomAPIError) {
        _ = try authorize(request, .read, room: room)
        let query = Self.query(request)
        let after = try Self.integer(query["after"], name: "after", default: 0, in: 0...Self.maxCount)
        let limit = try Self.integer(query["limit"], name: "limit", default: Int64(Self.defaultPageSize), in: 1...Int64(Self.maxPageSize))
        if let shared = context.shared {
            Task {
                do throws(SequencingError) {
                    guard let page = try await shared.history(room, after: after, limit: Int(limit)) else {
                        return responder.respond(RoomAPIError.unknownRoom(room).response)
                    }
                    responder.respond(Self.historyPage(page, after: after))
                } catch {
                    responder.respond(RoomAPIError.failed(error.description).response)
                }
            }
            return
        }
        let commits = context.commits
        head(of: room, responder) { head in
            guard after < head.rev, after + 1 >= head.oldestStoredRev else {
                return responder.respond(Self.historyPage(SharedHistory(epoch: head.epoch, rev: head.rev, oldestStoredRev: head.oldestStoredRev, patches: []),
                                                          after: after))
            }
            commits.read({ (store) throws(StorageError) -> [StoredPatch] in
                try store.patches(room: room, after: after, limit: Int(min(limit, head.rev - after)))
            }) { result in
                switch result {
                case .failure(let error):
                    responder.respond(RoomAPIError.failed(error.description).response)
                case .success(let patches):
                    responder.respond(Self.historyPage(SharedHistory(epoch: head.epoch, rev: head.rev, oldestStoredRev: head.oldestStoredRev,
                                                                     patches: patches), after: after))
                }
            }
        }
    }

    /// A history page's answer: 410 when `after` is older than what is kept, else the patches with
    /// `next` (null once the page reaches the head).
    static func historyPage(_ page: SharedHistory, after: Int64, maxBytes: Int = maxPageBytes) -> HTTPResponse {
        guard after + 1 >= page.oldestStoredRev || after >= page.rev else {
            return RoomAPIError.notRetained(after: after, oldest: page.oldestStoredRev - 1).response
        }
        var patches: [JSONValue] = []
        patches.reserveCapacity(page.patches.count)
        var bytes = 0
        var last = after
        for patch in page.patches {
            bytes += patch.ops.count
            if bytes > maxBytes && !patches.isEmpty { break }
            last = patch.rev
            guard let ops = try? JSONValue.parseStored(patch.ops) else {
                return RoomAPIError.failed("the stored patch at rev \(patch.rev) is unreadable").response
            }
            patches.append(.object([
                "rev": .number(Double(patch.rev)), "time": .number(Double(patch.time)), "user": .string(patch.user),
                "client": .string(patch.client), "seq": .number(Double(patch.seq)), "ops": ops,
            ]))
        }
        return .json(status: 200, .object([
            "epoch": .string(page.epoch), "patches": .array(patches), "next": last < page.rev ? .number(Double(last)) : .null,
        ]))
    }

    private func state(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(RoomAPIError) {
        _ = try authorize(request, .read, room: room)
        guard let text = Self.query(request)["rev"] else { throw .request(.invalidField("name the rev: state?rev=N")) }
        let rev = try Self.integer(text, name: "rev", default: 0, in: 0...Self.maxCount)
        if let shared = context.shared {
            Task {
                do throws(SequencingError) {
                    switch try await shared.state(room, at: rev) {
                    case .unknownRoom: responder.respond(RoomAPIError.unknownRoom(room).response)
                    case .pastHead(let head): responder.respond(RoomAPIError.pastHead(rev: rev, head: head).response)
                    case .notRetained(let oldest): responder.respond(RoomAPIError.stateNotRetained(rev: rev, oldest: oldest).response)
                    case .state(let epoch, let state):
                        responder.respond(.json(status: 200, .object(["epoch": .string(epoch), "rev": .number(Double(rev)), "state": state])))
                    }
                } catch {
                    responder.respond(RoomAPIError.failed(error.description).response)
                }
            }
            return
        }
        // The newest stored snapshot at or before the rev, and the patches from it to the rev: at most a
        // snapshot interval of them (what is not durable yet is not in storage and answers 404 until it is).
        context.commits.read({ (store) throws(StorageError) -> StoredRead? in
            guard let head = try store.head(of: room) else { return nil }
            return try Self.read(store, head: head, room: room, stateAt: rev)
        }) { result in
            switch result {
            case .failure(let error):
                responder.respond(RoomAPIError.failed(error.description).response)
            case .success(nil):
                responder.respond(RoomAPIError.unknownRoom(room).response)
            case .success(let read?):
                guard rev <= read.head.rev else { return responder.respond(RoomAPIError.pastHead(rev: rev, head: read.head.rev).response) }
                do {
                    guard let state = try Self.rebuild(read, at: rev) else {
                        return responder.respond(RoomAPIError.stateNotRetained(rev: rev, oldest: read.head.oldestRev - 1).response)
                    }
                    responder.respond(.json(status: 200, .object(["epoch": .string(read.head.epoch), "rev": .number(Double(rev)), "state": state])))
                } catch {
                    responder.respond(RoomAPIError.failed("the stored history does not rebuild rev \(rev): \(error)").response)
                }
            }
        }
    }

    private func delete(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(RoomAPIError) {
        _ = try authorize(request, .delete, room: room)
        if let shared = context.shared {
            let registry = context.registry
            Task {
                do throws(SequencingError) {
                    let existed = try await shared.delete(room)
                    // The other nodes learn it from the log; this one closes its connections now.
                    registry.closeDeleted(room)
                    responder.respond(existed ? .json(status: 200, .object(["room": .string(room), "deleted": true])) : RoomAPIError.unknownRoom(room).response)
                } catch {
                    responder.respond(RoomAPIError.failed(error.description).response)
                }
            }
            return
        }
        let deletion = context.registry.delete(room, commits: context.commits) { result in
            switch result {
            case .success(true): responder.respond(.json(status: 200, .object(["room": .string(room), "deleted": true])))
            case .success(false): responder.respond(RoomAPIError.unknownRoom(room).response)
            case .failure(let error): responder.respond(RoomAPIError.failed(error.description).response)
            }
        }
        if case .busy = deletion { throw .failed("the room is loading; try again") }
    }

    private func write(_ room: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws(RoomAPIError) {
        let claims = try authorize(request, .write, room: room)
        if let wait = context.writes.take(room: room, user: claims.sub, now: context.monotonicNow()) {
            throw .rateLimited(retryAfter: max(1, (wait + 999_999_999) / 1_000_000_000), limit: context.configuration.rateLimit)
        }
        let body: JSONRequestBody
        do throws(InviteAPIError) {
            // The ops' values may nest as deep as the document, under the body and the op.
            body = try JSONRequestBody(request, allowed: ["ops", "ifRev"], maxDepth: context.rooms.core.limits.maxDepth + 3)
        } catch {
            throw .request(error)
        }
        guard let list = body.value("ops") else { throw .request(.invalidField("\"ops\" is missing: send {\"ops\":[…]}")) }
        let ops: [PatchOp]
        do throws(PatchError) {
            ops = try PatchOp.list(from: list)
        } catch {
            throw .refused(error.code, message: error.description)
        }
        let ifRev: Int64?
        do throws(InviteAPIError) {
            ifRev = body.value("ifRev") == nil ? nil : try body.integer("ifRev", default: 0, in: 0...Self.maxCount)
        } catch {
            throw .request(error)
        }
        submit(ops, to: room, by: claims, ifRev: ifRev, responder, attempts: 5)
    }

    /// Submits to the loaded room (loading or creating it), again when the instance found was retiring.
    private func submit(_ ops: [PatchOp], to room: String, by claims: TokenClaims, ifRev: Int64?, _ responder: HTTPResponder, attempts: Int) {
        context.registry.withRoom(room) { [self] result in
            switch result {
            case .failure(let error):
                responder.respond(RoomAPIError.failed("the room could not be loaded: \(error.description)").response)
            case .success(let loaded):
                loaded.submitHTTP(ops, user: claims.sub, role: claims.role, ifRev: ifRev) { [self] outcome in
                    switch outcome {
                    case .applied(let rev): responder.respond(.json(status: 200, .object(["rev": .number(Double(rev))])))
                    case .conflict(let rev): responder.respond(RoomAPIError.conflict(expected: ifRev ?? rev, rev: rev).response)
                    case .refused(let code, let message): responder.respond(RoomAPIError.refused(code, message: message).response)
                    case .failed(let reason): responder.respond(RoomAPIError.failed(reason).response)
                    case .retired:
                        if attempts > 1 {
                            submit(ops, to: room, by: claims, ifRev: ifRev, responder, attempts: attempts - 1)
                        } else {
                            responder.respond(RoomAPIError.failed("the room was reloading").response)
                        }
                    }
                }
            }
        }
    }

    // MARK: - Helpers

    /// The verified claims of the request's bearer token, if they may do `action` in `room`.
    private func authorize(_ request: HTTPRequest, _ action: RoomAccess.Action, room: String) throws(RoomAPIError) -> TokenClaims {
        do throws(InviteAPIError) {
            return try BearerToken.authorize(request, verifier: context.tokens, access: context.access, action, room: room)
        } catch {
            throw .request(error)
        }
    }

    /// The room's head, from its loaded instance (once what it holds is durable) or else from storage
    /// (with its state rebuilt only `withState`); 404 when it was never stored.
    private func head(of room: String, withState: Bool = false, _ responder: HTTPResponder, answer: @escaping @Sendable (Room.Snapshot) -> Void) {
        if let loaded = context.registry.loadedRoom(room) {
            loaded.snapshot { [self] snapshot in
                if let snapshot { answer(snapshot) } else { stored(room, withState: withState, responder, answer) }
            }
        } else {
            stored(room, withState: withState, responder, answer)
        }
    }

    /// A room not in memory, from the shared store or else this server's.
    private func stored(_ room: String, withState: Bool, _ responder: HTTPResponder, _ answer: @escaping @Sendable (Room.Snapshot) -> Void) {
        guard let shared = context.shared else { return storedHere(room, withState: withState, responder, answer) }
        Task {
            do throws(SequencingError) {
                guard let snapshot = try await shared.room(room) else { return responder.respond(RoomAPIError.unknownRoom(room).response) }
                answer(snapshot)
            } catch {
                responder.respond(RoomAPIError.failed(error.description).response)
            }
        }
    }

    /// The head of a room that is not in memory, read from storage without loading the room (its state
    /// `.null` unless `withState`).
    private func storedHere(_ room: String, withState: Bool, _ responder: HTTPResponder, _ answer: @escaping @Sendable (Room.Snapshot) -> Void) {
        context.commits.read({ (store) throws(StorageError) -> StoredRead? in
            guard let head = try store.head(of: room) else { return nil }
            return withState ? try Self.read(store, head: head, room: room, stateAt: head.rev) : StoredRead(head: head)
        }) { result in
            switch result {
            case .failure(let error):
                responder.respond(RoomAPIError.failed(error.description).response)
            case .success(nil):
                responder.respond(RoomAPIError.unknownRoom(room).response)
            case .success(let read?):
                var state = JSONValue.null
                if withState {
                    guard let rebuilt = try? Self.rebuild(read, at: read.head.rev) else {
                        return responder.respond(RoomAPIError.failed("the stored history does not rebuild rev \(read.head.rev)").response)
                    }
                    state = rebuilt
                }
                answer(Room.Snapshot(epoch: read.head.epoch, rev: read.head.rev, state: state, participants: [], oldestStoredRev: read.head.oldestRev))
            }
        }
    }

    /// What storage holds of a room for one answer: its head, and for a state the newest snapshot at
    /// or before that rev with the patches from it to the rev.
    private struct StoredRead: Sendable {
        var head: StoredHead
        var snapshot: StoredSnapshot?
        var patches: [StoredPatch] = []
    }

    /// Reads the snapshot and patches the state at `rev` (at most the head) is rebuilt from.
    private static func read(_ store: any RoomStore, head: StoredHead, room: String, stateAt rev: Int64) throws(StorageError) -> StoredRead {
        guard rev <= head.rev, let snapshot = try store.snapshot(room: room, atOrBefore: rev) else { return StoredRead(head: head) }
        let patches = rev > snapshot.rev ? try store.patches(room: room, after: snapshot.rev, limit: Int(rev - snapshot.rev)) : []
        return StoredRead(head: head, snapshot: snapshot, patches: patches)
    }

    /// The state at `rev` from what `read` holds; nil when its snapshot and patches do not reach it.
    /// - Throws: when a stored snapshot or patch is unreadable.
    private static func rebuild(_ read: StoredRead, at rev: Int64) throws -> JSONValue? {
        guard let snapshot = read.snapshot, read.patches.count == Int(rev - snapshot.rev),
              read.patches.first.map({ $0.rev == snapshot.rev + 1 }) ?? true,
              var document = Document(try JSONValue.parseStored(snapshot.state))
        else { return nil }
        for patch in read.patches { try document.apply(try PatchOp.list(from: try JSONValue.parseStored(patch.ops)), limits: .unlimited) }
        return document.root
    }

    /// The query string's parameters (percent-decoded; the last of a repeated name wins).
    private static func query(_ request: HTTPRequest) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in (request.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            parameters[name] = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
        }
        return parameters
    }

    private static func integer(_ text: String?, name: String, default value: Int64, in range: ClosedRange<Int64>) throws(RoomAPIError) -> Int64 {
        guard let text else { return value }
        guard let number = Int64(text), range.contains(number) else {
            throw .request(.invalidField("\"\(name)\" must be an integer from \(range.lowerBound) to \(range.upperBound)"))
        }
        return number
    }
}
