import Testing
import TandemProtocol
@testable import TandemClient
@testable import TandemServer

/// A deterministic model of 2–3 clients talking to the server's sequencer (`RoomCore`) over
/// lossy, reordering-free connections with arbitrary delays, drops, resumes and snapshots.
///
/// Besides object paths, the clients edit a shared list (`/cart`) by index: each insert carries a
/// unique id, each removal and each write of an item's `n` a unique marker (`/tags/…`) in the same
/// patch, so what the server applied can be compared with what each author meant on the state it
/// saw (`checkIntent`).
///
/// Every step is drawn from a seeded generator, so a failing case is replayed by its seed.
struct SyncSimulation {
    struct Client {
        var engine: SyncEngine
        var identity: SessionIdentity
        /// Current connection id; `nil` while disconnected.
        var connection: Int?
        var toServer: [ClientMessage] = []
        var toClient: [ServerMessage] = []
        /// Every seq this client sent, with its ops and base as last sent: a resend carries the same
        /// ops, or ops rebased onto a later base.
        var sentOps: [Int64: (ops: [PatchOp], base: Int64)] = [:]
        var highestSeq: Int64 = 0
        var acknowledged: [(seq: Int64, rev: Int64)] = []
        /// The list changes this client made, by marker, on the items it saw.
        var intents: [String: Intent] = [:]
        var made = 0
    }

    /// What an author meant by a list change, in terms of the items it saw.
    enum Intent {
        case remove(id: String)
        case write(id: String, n: Int)
        case move(id: String)
    }

    /// Messages of a lost connection still travelling to the server.
    struct LateMessage {
        var client: Int
        var connection: Int
        var message: ClientMessage
    }

    var random: SplitMix
    var core: RoomCore
    var clients: [Client]
    var late: [LateMessage] = []
    /// The server document after each rev, to check every client's confirmed state on the way.
    var documents: [Int64: Document] = [:]
    var now: Int64 = 0
    var nextConnection = 1
    let limits: SessionLimits
    var stats = Stats()
    /// Intent cannot be kept when pending list changes meet a snapshot (nothing to rebase them over).
    var intentKept = true

    struct Stats {
        var acks = 0, rejects = 0, drops = 0, snapshots = 0, replays = 0, lateApplied = 0, ownEventAcks = 0, duplicates = 0
        var rebasedAcks = 0, intentChecks = 0
    }

    init(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var settings = RoomCore.Settings()
        settings.recentCapacity = 100_000
        // A short history window sends far-behind clients a snapshot instead of a replay.
        if random.chance(0.3) { settings.historyWindow = Int64(random.int(2..<8)) }
        core = RoomCore.create(name: "room", epoch: "epoch-1", settings: settings).0
        // The list exists from rev 1 on: nobody writes it whole, so every change to it is by index.
        let setup = SessionIdentity(user: "setup", client: "setup", role: .host)
        _ = core.submit(seq: 1, ops: [.set(JSONPointer(tokens: ["cart"]), .array([]))], author: setup)
        limits = random.chance(0.3) ? SessionLimits(rate: 0) : SessionLimits(rate: 60, burst: 120)
        let count = random.int(2..<4)
        let highRate = random.chance(0.5) ? 33_000_000 : Int64(0)
        var clients: [Client] = []
        for index in 0..<count {
            let role: Role = index == 2 && random.chance(0.5) ? .viewer : .guest
            let configuration = SyncEngineConfiguration(maxInFlight: random.int(1..<5), highRateInterval: highRate)
            clients.append(Client(engine: SyncEngine(clientID: "c\(index)", configuration: configuration),
                                  identity: SessionIdentity(user: "user\(index)", client: "c\(index)", role: role)))
        }
        self.clients = clients
        self.random = random
        documents = [0: Document(), 1: core.document]
    }

    // MARK: - Running

    mutating func run(steps: Int) {
        for index in clients.indices where random.chance(0.8) { connect(index) }
        for _ in 0..<steps { step() }
        settle()
    }

    mutating func step() {
        let index = random.int(0..<clients.count)
        switch random.int(0..<100) {
        case 0..<30: localChange(index)
        case 30..<45: send(index)
        case 45..<65: deliverToServer(index, count: random.int(1..<4))
        case 65..<85: deliverToClient(index, count: random.int(1..<4))
        case 85..<90: drop(index)
        case 90..<94: if clients[index].connection == nil { connect(index) }
        case 94..<97: deliverLate()
        default: now += Int64(random.int(1..<120)) * 1_000_000
        }
    }

    /// Reconnects everyone, delivers everything and lets every outbox drain.
    mutating func settle() {
        for index in clients.indices where clients[index].connection == nil { connect(index) }
        while !late.isEmpty { deliverLate() }
        var rounds = 0
        while rounds < 20_000 {
            rounds += 1
            var busy = false
            for index in clients.indices {
                send(index)
                busy = busy || !clients[index].toServer.isEmpty || !clients[index].toClient.isEmpty
                deliverToServer(index, count: .max)
                deliverToClient(index, count: .max)
                busy = busy || !clients[index].engine.pending.isEmpty
            }
            if !busy { return }
            now += 10_000_000
        }
        Issue.record("the simulation did not settle: \(clients.map { $0.engine.pending })")
    }

    // MARK: - Client side

    mutating func localChange(_ index: Int) {
        if random.chance(0.4) { return listChange(index) }
        let ops = randomOps(visible: clients[index].engine.visible.root)
        // Changes that do not apply locally are refused by the engine; that is tested elsewhere.
        _ = try? clients[index].engine.localChange(ops)
    }

    mutating func send(_ index: Int) {
        guard clients[index].connection != nil else { return }
        let messages = clients[index].engine.nextOutgoing(now: now)
        for message in messages {
            guard case .patch(let seq, let ops, let base) = message else { continue }
            #expect(base != nil && base! <= clients[index].engine.rev, "seq \(seq) sent with base \(String(describing: base))")
            if let earlier = clients[index].sentOps[seq] {
                // The same ops, or the ops rebased over what arrived since, on a later base.
                #expect(earlier.ops == ops || earlier.base < base ?? 0, "seq \(seq) resent with other ops on the same base")
            } else {
                #expect(seq > clients[index].highestSeq, "new seq \(seq) not above \(clients[index].highestSeq)")
                clients[index].highestSeq = seq
            }
            clients[index].sentOps[seq] = (ops, base ?? 0)
        }
        clients[index].toServer.append(contentsOf: messages)
    }

    mutating func deliverToClient(_ index: Int, count: Int) {
        var delivered = 0
        while delivered < count, !clients[index].toClient.isEmpty {
            let message = clients[index].toClient.removeFirst()
            let wasPending = clients[index].engine.pending
            if case .welcome(let welcome) = message, case .state = welcome.sync,
               wasPending.contains(where: { Self.touchesList($0.ops) }) {
                intentKept = false
            }
            for event in clients[index].engine.receive(message) {
                switch event {
                case .acknowledged(let seq, let rev):
                    // A duplicate ack repeats the server's claim that the seq was applied earlier; the
                    // contract is checked on the first-hand ones.
                    if case .ack(_, _, true, _) = message { break }
                    clients[index].acknowledged.append((seq, rev))
                    if case .patch = message { stats.ownEventAcks += 1 }
                case .rejected: stats.rejects += 1
                case .resyncNeeded(let reason): Issue.record("client \(index) lost track: \(reason)")
                default: break
                }
            }
            let engine = clients[index].engine
            #expect(engine.confirmed == documents[engine.rev], "client \(index) confirmed differs from the server at rev \(engine.rev)")
            if case .ack = message, wasPending.count == engine.pending.count { stats.duplicates += 1 }
            delivered += 1
        }
    }

    mutating func drop(_ index: Int) {
        guard let connection = clients[index].connection else { return }
        stats.drops += 1
        clients[index].engine.connectionLost()
        clients[index].connection = nil
        clients[index].toClient.removeAll()
        // Some of what was on the way reached the server before the drop, some later, some never.
        let outbound = clients[index].toServer
        clients[index].toServer.removeAll()
        let arrived = random.int(0..<(outbound.count + 1))
        for message in outbound[..<arrived] { serve(message, from: index, connection: connection) }
        for message in outbound[arrived...] where random.chance(0.5) {
            late.append(LateMessage(client: index, connection: connection, message: message))
        }
    }

    mutating func connect(_ index: Int) {
        let connection = nextConnection
        nextConnection += 1
        clients[index].connection = connection
        clients[index].toServer.removeAll()
        clients[index].toClient.removeAll()
        // Sometimes the client asks for a snapshot even though it could resume, or names an old epoch.
        var resume = clients[index].engine.resume
        if random.chance(0.15) { resume = nil } else if random.chance(0.05) { resume = ResumePoint(epoch: "old", rev: 0) }
        let sync: Welcome.Sync
        switch core.plan(resume: resume) {
        case .replay(let events):
            stats.replays += 1
            sync = .replay(events)
        case .snapshot, .replayFromStorage:
            stats.snapshots += 1
            sync = .state(core.document.root)
        }
        let welcome = Welcome(epoch: core.epoch, rev: core.rev, sync: sync, lastSeq: core.lastSeq(of: clients[index].identity.peer),
                              you: clients[index].identity, participants: [], limits: limits)
        clients[index].toClient.append(.welcome(welcome))
    }

    // MARK: - Server side

    mutating func deliverToServer(_ index: Int, count: Int) {
        guard let connection = clients[index].connection else { return }
        var delivered = 0
        while delivered < count, !clients[index].toServer.isEmpty {
            serve(clients[index].toServer.removeFirst(), from: index, connection: connection)
            delivered += 1
        }
    }

    mutating func deliverLate() {
        guard !late.isEmpty else { return }
        // Late messages of one connection keep their order.
        let message = late.removeFirst()
        serve(message.message, from: message.client, connection: message.connection)
    }

    /// The server's handling of one client message, exactly as the room sequences it: the ack or
    /// reject goes back over the connection it came from (if that one is still current), the
    /// patch event to every other current connection, the author's newer connection included.
    mutating func serve(_ message: ClientMessage, from index: Int, connection: Int) {
        guard case .patch(let seq, let ops, let base) = message else { return }
        let current = clients[index].connection == connection
        switch core.submit(seq: seq, ops: ops, base: base, author: clients[index].identity) {
        case .applied(let event, _, let rebased):
            stats.acks += 1
            if rebased { stats.rebasedAcks += 1 }
            if !current { stats.lateApplied += 1 }
            documents[core.rev] = core.document
            for other in clients.indices where clients[other].connection != nil {
                if other == index && current {
                    clients[other].toClient.append(.ack(seq: seq, rev: event.rev, duplicate: false, ops: rebased ? event.ops : nil))
                } else {
                    clients[other].toClient.append(.patch(event))
                }
            }
        case .duplicate(let seq, let rev):
            // A seq skipped because a later one of a lost connection got in first is never applied: the
            // author's later list changes were made on top of it.
            if core.recent.revision(author: clients[index].identity.peer, seq: seq) == nil, Self.touchesList(ops) { intentKept = false }
            if current { clients[index].toClient.append(.ack(seq: seq, rev: rev ?? core.rev, duplicate: true)) }
        case .rejected(let seq, let error):
            if Self.touchesList(ops) { intentKept = false }
            if current { clients[index].toClient.append(.reject(seq: seq, code: error.code, message: error.description)) }
        }
    }

    // MARK: - Generating changes

    mutating func randomOps(visible: JSONValue) -> [PatchOp] {
        var ops: [PatchOp] = []
        for _ in 0..<(random.chance(0.2) ? 2 : 1) { ops.append(randomOp(visible: visible)) }
        return ops
    }

    mutating func randomOp(visible: JSONValue) -> PatchOp {
        let mark = "k\(random.int(0..<4))"
        switch random.int(0..<12) {
        case 0: return Fixtures.set("/tabIndex", .number(Double(random.int(0..<4))))
        case 1, 2: return Fixtures.set("/contentOffset", ["x": 0, "y": .number(Double(random.int(0..<2000)))])
        case 3: return Fixtures.set("/contentOffset/y", .number(Double(random.int(0..<2000))))
        case 4: return Fixtures.set("/addToCartSelected", .bool(random.chance(0.5)))
        case 5, 6: return Fixtures.set("/marks/\(mark)", .bool(random.chance(0.5)))
        case 7: return Fixtures.remove("/marks/\(mark)")
        // Turns /marks into a number: others' pending mark changes stop applying and get rejected.
        case 8: return Fixtures.set("/marks", random.chance(0.5) ? .number(7) : .emptyObject)
        case 9: return Fixtures.set("/list", .array((0..<random.int(1..<4)).map { .number(Double($0)) }))
        // Valid only while the list has 3 elements: may be rejected after a remote change.
        case 10: return Fixtures.set("/list/2", .string("v\(random.int(0..<9))"))
        default: return Fixtures.remove("/list")
        }
    }

    /// A change to the list on the items this client sees: an insert of a new id, or a removal, a
    /// write of `n` or a move of an item, each with its marker.
    mutating func listChange(_ index: Int) {
        let visible = clients[index].engine.visible.root
        guard case .object(let members) = visible, case .array(let items)? = members["cart"] else { return }
        clients[index].made += 1
        let mark = "c\(index)-\(clients[index].made)"
        let marker = PatchOp.set(JSONPointer(tokens: ["tags", mark]), .bool(true))
        let cart = { (token: String) in JSONPointer(tokens: ["cart", token]) }
        let ids = items.map(Self.id(of:))
        var ops: [PatchOp]
        var intent: Intent?
        switch random.int(0..<10) {
        case 0..<4 where true:
            let at = random.chance(0.3) ? "-" : String(random.int(0..<(items.count + 1)))
            ops = [.add(cart(at), .object(["id": .string(mark), "n": 0]))]
        case 4..<6 where !items.isEmpty:
            let at = random.int(0..<items.count)
            ops = [.remove(cart(String(at))), marker]
            intent = .remove(id: ids[at])
        case 6..<9 where !items.isEmpty:
            let at = random.int(0..<items.count)
            let n = clients[index].made * 10 + index
            ops = [.set(JSONPointer(tokens: ["cart", String(at), "n"]), .number(Double(n))), marker]
            intent = .write(id: ids[at], n: n)
        default:
            guard items.count > 1 else { return }
            let from = random.int(0..<items.count), to = random.int(0..<items.count)
            guard from != to else { return }
            ops = [.move(from: cart(String(from)), to: cart(String(to))), marker]
            intent = .move(id: ids[from])
        }
        // `/tags` is made by the first marker that needs it.
        if ops.count > 1, case .object(let members) = visible, members["tags"] == nil {
            ops.insert(.add(JSONPointer(tokens: ["tags"]), .emptyObject), at: ops.count - 1)
            ops[ops.count - 1] = .add(JSONPointer(tokens: ["tags", mark]), .bool(true))
        }
        guard (try? clients[index].engine.localChange(ops)) != nil else { return }
        if let intent { clients[index].intents[mark] = intent }
    }

    static func touchesList(_ ops: [PatchOp]) -> Bool {
        ops.contains { $0.path.tokens.first == "cart" || $0.from?.tokens.first == "cart" }
    }

    static func id(of item: JSONValue) -> String {
        if case .object(let fields) = item, case .string(let id)? = fields["id"] { id } else { "?" }
    }

    // MARK: - The contract

    /// What the server applied of the list changes, against what their authors meant: every applied
    /// insert is in the list exactly once unless an applied removal meant it; an applied removal
    /// took out the item its author saw; an item's `n` is the one its last applied write meant.
    /// A moved item counts as removed and inserted again for the changes made concurrently with the
    /// move (docs/PROTOCOL.md), so changes meant for it are not checked.
    mutating func checkIntent() {
        guard intentKept else { return }
        let history = core.recent.events(after: 1, through: core.rev) ?? []
        var inserted: [String: Int] = [:]
        var applied: [(rev: Int64, intent: Intent)] = []
        for event in history {
            for op in event.ops {
                if case .add(let path, let value) = op, path.tokens.first == "cart", path.tokens.count == 2 {
                    inserted[Self.id(of: value), default: 0] += 1
                }
                let marker: String? = switch op {
                case .set(let path, _), .add(let path, _): path.tokens.first == "tags" && path.tokens.count == 2 ? path.tokens[1] : nil
                default: nil
                }
                guard let marker, let author = Int(marker.dropFirst().prefix { $0 != "-" }), author < clients.count,
                      let intent = clients[author].intents[marker] else { continue }
                applied.append((event.rev, intent))
            }
        }
        guard case .object(let members) = core.document.root, case .array(let items)? = members["cart"] else {
            Issue.record("the list is gone")
            return
        }
        let final = items.map(Self.id(of:))
        var moved: Set<String> = []
        var removed: Set<String> = []
        var lastWrite: [String: Int] = [:]
        for (_, intent) in applied {
            switch intent {
            case .move(let id): moved.insert(id)
            case .remove(let id): removed.insert(id)
            case .write(let id, let n): lastWrite[id] = n
            }
        }
        stats.intentChecks += 1
        for (id, count) in inserted {
            #expect(count == 1, "\(id) inserted \(count) times")
            let present = final.filter { $0 == id }.count
            if removed.contains(id) {
                if !moved.contains(id) { #expect(present == 0, "\(id) was removed on purpose but is still there: \(final)") }
            } else {
                #expect(present == 1, "\(id) is there \(present) times: \(final)")
            }
        }
        for item in items {
            let id = Self.id(of: item)
            guard !moved.contains(id), case .object(let fields) = item, case .number(let n)? = fields["n"] else { continue }
            #expect(Int(n) == lastWrite[id] ?? 0, "\(id) has n \(Int(n)), its last write meant \(lastWrite[id] ?? 0)")
        }
    }

    func checkConverged() {
        let history = core.recent.events(after: 0, through: core.rev) ?? []
        for (index, client) in clients.enumerated() {
            let engine = client.engine
            #expect(engine.pending.isEmpty, "client \(index) still has pending patches")
            #expect(engine.rev == core.rev, "client \(index) at rev \(engine.rev), server at \(core.rev)")
            #expect(engine.confirmed == core.document, "client \(index) confirmed state differs from the server's")
            #expect(engine.visible == core.document, "client \(index) visible state differs from the server's")
            let applied = history.filter { $0.client == client.identity.client }
            // Exactly once, in seq order.
            #expect(applied.map(\.seq) == applied.map(\.seq).sorted() && Set(applied.map(\.seq)).count == applied.count)
            for ack in client.acknowledged {
                #expect(applied.contains { $0.seq == ack.seq && $0.rev == ack.rev }, "acknowledged seq \(ack.seq) of client \(index) is not in the history")
            }
        }
    }
}
