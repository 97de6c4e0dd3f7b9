import TandemSynchronization
import TandemClient
import TandemProtocol

/// One scripted participant of `tandem demo`: a `SyncSession` that switches tabs, scrolls, toggles
/// the cart and sets marks on the typed `DemoPage`, as a shopper on the article's product page would,
/// and keeps the figures the live display and the final verdict need.
///
/// Every scripted change also writes one journal entry (`/journal/<name>/<step>`) that nothing else
/// overwrites, so after the run each acknowledged change can be looked up in the server's state:
/// a missing entry is an acknowledged update that was lost. Thread-safe: figures sit behind a mutex.
final class DemoParticipant: Sendable {
    /// What the display shows and the verdict counts.
    struct Figures: Sendable {
        var roundTripMilliseconds: Double?
        var reconnects = 0
        var status = "idle"
        /// Journal keys of changes the session accepted locally, in order.
        var applied: [String] = []
        /// Journal keys of changes the server rejected.
        var rejected: Set<String> = []
    }

    /// The mark keys the script sets (badges on the page).
    static let markKeys = ["video_playing", "price_sheet_shown", "size_chart_open", "reviews_expanded"]

    let name: String
    let session: SyncSession
    private let page: SharedState<DemoPage>
    private let figures = Locked(Figures())

    init(name: String, session: SyncSession, page: SharedState<DemoPage>) {
        self.name = name
        self.session = session
        self.page = page
    }

    var current: Figures { figures.withLock { $0 } }

    /// Consumes the session's events until it ends, keeping round trips, reconnects and rejections.
    func observe() -> Task<Void, Never> {
        // Listening starts now, not when the task first runs.
        let events = session.events
        return Task {
            for await event in events {
                figures.withLock { figures in
                    switch event {
                    case .roundTrip(let seconds): figures.roundTripMilliseconds = seconds * 1000
                    case .connectionChanged(let state):
                        figures.status = Self.status(state)
                        if case .reconnecting = state { figures.reconnects += 1 }
                    case .rejected(_, _, _, let ops):
                        for key in ops.flatMap(Self.journalKey) { figures.rejected.insert(key) }
                    default: break
                    }
                }
            }
        }
    }

    /// Makes one scripted change (step numbers must not repeat) to the typed page as it is visible now.
    func act(step: Int, using random: inout some RandomNumberGenerator) async {
        let visible = await session.snapshot.state
        let choice = Int.random(in: 0..<4, using: &random)
        let tab = Int.random(in: 0..<3, using: &random)
        let y = Double(Int.random(in: 0...4000, using: &random))
        let mark = Self.markKeys[Int.random(in: 0..<Self.markKeys.count, using: &random)]
        let markOn = Bool.random(using: &random)
        let key = "\(step)"
        let ops: [PatchOp]
        do {
            let old = try page.value(of: visible)
            var new = old
            switch choice {
            case 0: new.tabIndex = tab
            case 1: new.contentOffset = ContentOffset(x: 0, y: y)
            case 2: new.addToCartSelected.toggle()
            default: new.marks[mark] = markOn
            }
            new.journal[name, default: [:]][key] = step
            ops = try page.changes(from: old, to: new)
        } catch {
            return  // the demo's own participants never write a state its type cannot read
        }
        do {
            try await session.apply(ops)
            figures.withLock { $0.applied.append(key) }
        } catch {
            // Only a closed session refuses here; the run's verdict reports what was not delivered.
        }
    }

    /// Journal entries that were acknowledged (applied and not rejected) but are missing from `state`.
    func lostUpdates(in state: JSONValue) -> [String] {
        let figures = current
        let journal = state["journal"]?[name]
        return figures.applied.filter { !figures.rejected.contains($0) && journal?[$0] == nil }
    }

    /// The journal steps a rejected patch carried: one entry (`/journal/<name>/<step>`), or a participant's
    /// first entries written as a whole object (`/journal/<name>`).
    private static func journalKey(_ op: PatchOp) -> [String] {
        guard case .set(let path, let value) = op, path.tokens.first == "journal" else { return [] }
        switch path.tokens.count {
        case 3: return [path.tokens[2]]
        case 2: return value.objectValue.map { Array($0.keys) } ?? []
        default: return []
        }
    }

    private static func status(_ state: ConnectionState) -> String {
        switch state {
        case .reconnecting(_, let delay): "reconnecting in \(delay.totalMilliseconds) ms"
        default: "\(state)"
        }
    }
}
