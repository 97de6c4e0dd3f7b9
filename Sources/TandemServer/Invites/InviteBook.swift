import TandemSynchronization

/// The invitations of every room, in memory: the single place that decides whether a code is live, spent,
/// revoked or unknown. Storage holds the durable copy; the API writes through it after each decision.
///
/// Thread-safe (one mutex). Decisions are atomic, so two accepts racing for the last use of a code cannot
/// both win. Time is passed in (unix seconds), never read here.
final class InviteBook: Sendable {
    /// How an accept ended.
    enum AcceptOutcome: Sendable, Equatable {
        /// Accepted; the invitation after its use was counted.
        case accepted(StoredInvite)
        /// No invitation has this code (or it was forgotten after its retention).
        case unknown
        /// The code existed but cannot be used any more.
        case gone(GoneReason)
    }

    /// Why a known code no longer admits anyone.
    enum GoneReason: String, Sendable, Equatable {
        case expired, usedUp = "used_up", revoked
    }

    /// Why a new invitation could not be made.
    enum ReserveError: Error, Sendable, Equatable {
        /// The room already has `limit` live invitations.
        case tooManyLive(limit: Int)
        /// No free code was found (the code space is nearly full).
        case noFreeCode
    }

    private struct State {
        var invites: [String: StoredInvite]
    }

    private let state: Locked<State>
    /// How long a dead invitation is remembered after its expiry, seconds.
    let retention: Int64

    /// Starts with the stored invitations.
    init(invites: [StoredInvite], retention: Int64) {
        state = Locked(State(invites: Dictionary(invites.map { ($0.code, $0) }, uniquingKeysWith: { $1 })))
        self.retention = retention
    }

    /// Whether `invite` still admits someone at `now`.
    static func isLive(_ invite: StoredInvite, now: Int64) -> Bool {
        !invite.revoked && invite.usesLeft > 0 && now < invite.expiresAt
    }

    /// Records a new invitation with a code from `makeCode` that no stored invitation has. Returns it with the
    /// codes forgotten on the way (past their retention), which storage should delete too.
    func reserve(_ template: StoredInvite, maxLivePerRoom: Int, now: Int64, makeCode: () -> String) throws(ReserveError) -> (StoredInvite, forgotten: [String]) {
        try state.withLock { (state) throws(ReserveError) -> (StoredInvite, forgotten: [String]) in
            let forgotten = forgetOld(&state, now: now)
            let live = state.invites.values.count { $0.room == template.room && Self.isLive($0, now: now) }
            guard live < maxLivePerRoom else { throw .tooManyLive(limit: maxLivePerRoom) }
            for _ in 0..<64 {
                let code = makeCode()
                guard state.invites[code] == nil else { continue }
                var invite = template
                invite.code = code
                state.invites[code] = invite
                return (invite, forgotten)
            }
            throw .noFreeCode
        }
    }

    /// Counts one use of `code` if it is live. A code past its retention is forgotten here (`.unknown`).
    func accept(_ code: String, now: Int64) -> AcceptOutcome {
        state.withLock { state in
            guard var invite = state.invites[code] else { return .unknown }
            guard now < invite.expiresAt + retention else {
                state.invites[code] = nil
                return .unknown
            }
            if let reason = Self.goneReason(invite, now: now) { return .gone(reason) }
            invite.usesLeft -= 1
            state.invites[code] = invite
            return .accepted(invite)
        }
    }

    /// Revokes `code` if it belongs to `room`: `.accepted` with the revoked invitation, `.unknown` for another
    /// room's or no code, `.gone` when it was dead already.
    func revoke(_ code: String, room: String, now: Int64) -> AcceptOutcome {
        state.withLock { state in
            guard var invite = state.invites[code], invite.room == room else { return .unknown }
            if let reason = Self.goneReason(invite, now: now) { return .gone(reason) }
            invite.revoked = true
            state.invites[code] = invite
            return .accepted(invite)
        }
    }

    /// Puts back an invitation as it was (when storing a change failed), or removes a reservation (`nil`).
    func restore(code: String, to invite: StoredInvite?) {
        state.withLock { $0.invites[code] = invite }
    }

    /// The live invitations of `room`, soonest expiry first.
    func live(room: String, now: Int64) -> [StoredInvite] {
        state.withLock { state in
            state.invites.values.filter { $0.room == room && Self.isLive($0, now: now) }
                .sorted { ($0.expiresAt, $0.code) < ($1.expiresAt, $1.code) }
        }
    }

    /// Forgets invitations past their retention; returns their codes.
    func forgetOld(now: Int64) -> [String] {
        state.withLock { forgetOld(&$0, now: now) }
    }

    private func forgetOld(_ state: inout State, now: Int64) -> [String] {
        let old = state.invites.values.filter { now >= $0.expiresAt + retention }.map(\.code)
        for code in old { state.invites[code] = nil }
        return old
    }

    private static func goneReason(_ invite: StoredInvite, now: Int64) -> GoneReason? {
        if invite.revoked { return .revoked }
        if now >= invite.expiresAt { return .expired }
        if invite.usesLeft <= 0 { return .usedUp }
        return nil
    }
}
