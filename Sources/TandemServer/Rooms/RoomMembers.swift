import TandemProtocol

/// Who is in one room: the connections of this node (by user and client id) and the participants other
/// nodes serve, and what each connection is told of the others (join, presence, leave).
///
/// A value with one owner (the room, under its lock); it sends frames to sinks but never blocks.
struct RoomMembers {
    /// Where a connection of this node stands.
    enum Phase {
        /// Waiting for its welcome to be released.
        case pending
        /// Welcomed: receives patches, presence, signals.
        case live
        /// Connection lost; kept until the grace timer fires.
        case dropped(any ScheduledTimer)

        var isDropped: Bool { if case .dropped = self { true } else { false } }
    }

    /// One connection of this node.
    struct Member {
        var identity: SessionIdentity
        var name: String?
        var data: JSONValue
        var sink: any SessionSink
        var connection: ConnectionID
        var phase: Phase
        /// Whether the others have been told of this participant (join sent).
        var announced: Bool

        var participant: Participant {
            Participant(user: identity.user, client: identity.client, role: identity.role, name: name, data: data)
        }

        var isLive: Bool { if case .live = phase { true } else { false } }
    }

    /// Connections of this node: another user's client of the same id is another member.
    private(set) var here: [Peer: Member] = [:]
    /// Participants connected to other nodes (never one connected here).
    private(set) var elsewhere: [Peer: Participant] = [:]

    /// Members of this node, grace periods included.
    var count: Int { here.count }
    var isEmpty: Bool { here.isEmpty }

    subscript(peer: Peer) -> Member? {
        get { here[peer] }
        set { here[peer] = newValue }
    }

    /// The member `peer` while `connection` is still the one that serves it (not a newer one).
    func member(_ peer: Peer, on connection: ConnectionID) -> Member? {
        guard let member = here[peer], member.connection == connection else { return nil }
        return member
    }

    /// How many connections `user` has here.
    func connections(of user: String) -> Int {
        here.values.count { $0.identity.user == user }
    }

    /// The members of `user` here.
    func members(of user: String) -> [Member] {
        here.values.filter { $0.identity.user == user }
    }

    /// Whether `peer` was announced by another node, forgetting it there: it moved here.
    mutating func takeFromElsewhere(_ peer: Peer) -> Bool {
        elsewhere.removeValue(forKey: peer) != nil
    }

    /// Forgets `peer` and returns it, if it was here.
    mutating func remove(_ peer: Peer) -> Member? {
        here.removeValue(forKey: peer)
    }

    /// Forgets every member here and returns them.
    mutating func removeAll() -> [Member] {
        defer { here.removeAll() }
        return Array(here.values)
    }

    /// Marks every member here as never announced (after reporting them as left).
    mutating func forgetAnnouncements() {
        for key in here.keys { here[key]?.announced = false }
    }

    /// The participants of this node the others know of (grace periods included).
    var announcedHere: [Participant] { here.values.filter(\.announced).map(\.participant) }

    /// Everyone the room shows, in a stable order (user, then client): a welcome's and the HTTP API's list.
    var participants: [Participant] {
        (announcedHere + elsewhere.values).sorted { ($0.user, $0.client) < ($1.user, $1.client) }
    }

    /// Whether no one but `peer` is announced, here or elsewhere.
    func isAlone(_ peer: Peer?) -> Bool {
        elsewhere.isEmpty && !here.contains { $0.key != peer && $0.value.announced }
    }

    /// Sends `message` to every live member but `peer`.
    func broadcast(_ message: OutboundMessage, except peer: Peer) {
        for (key, member) in here where key != peer && member.isLive {
            member.sink.send(message)
        }
    }

    /// Takes the participants other nodes announce now (peers connected here ignored: one that moved
    /// here is still listed where it was until its entry lapses); tells the live members here the
    /// difference as leave, join and presence events.
    mutating func replaceElsewhere(with participants: [Participant]) {
        var incoming: [Peer: Participant] = [:]
        for participant in participants where here[participant.peer] == nil {
            incoming[participant.peer] = incoming[participant.peer] ?? participant
        }
        for (peer, _) in elsewhere where incoming[peer] == nil {
            broadcast(OutboundMessage(.leave(peer)), except: peer)
        }
        for (peer, participant) in incoming {
            if let known = elsewhere[peer] {
                if known.data != participant.data {
                    broadcast(OutboundMessage(.presence(peer, data: participant.data)), except: peer)
                }
            } else {
                broadcast(OutboundMessage(.join(participant)), except: peer)
            }
        }
        elsewhere = incoming
    }
}
