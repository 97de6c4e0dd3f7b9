import Foundation
import TandemClient
import TandemTesting

// The portable Swift snippets of docs/CLIENT.md and docs/TLS.md, verbatim inside functions that give
// them the names they use. `GuideSnippetTests` checks that every snippet of the guides is here (or
// marked as Apple-only), so the guides cannot drift from what compiles. These functions are compiled,
// not run.

/// What the "A session" snippet calls.
private struct Backend {
    func tandemToken(room: String) async throws -> String { room }
}

private func render(_ state: JSONValue) {}

enum GuideSnippets {
    fileprivate static func aSession(clientID: String, backend: Backend) async throws {
        let session = SyncSession(
            url: "wss://cobrowse.example.com/v1/sync",
            clientID: clientID,                          // stable per install (see Persistence: the folder keeps it)
            tokenProvider: { try await backend.tandemToken(room: "product-42") },   // called before every attempt
            presence: ["name": "Alice"])
        await session.start()
        try await session.apply([.set(JSONPointer(tokens: ["tabIndex"]), 2)])
        for await snapshot in await session.snapshots() { render(snapshot.state) }
    }

    static func persistence(url: String, token: @escaping @Sendable () async throws -> String) throws {
        let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("tandem/product-42").path
        let persistence = try FileSyncPersistence(folder: folder)   // throws .locked, .unsupportedFormat, .unreadable
        let session = SyncSession(url: url, clientID: UUID().uuidString, tokenProvider: token, persistence: persistence)
        _ = session
    }

    static func testing() async throws {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://test/v1/sync", clientID: "a1", tokenProvider: { "token" }, transport: transport)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let server = await connections.next()!
        var received = server.received.makeAsyncIterator()
        let hello = try ClientMessage.decode(await received.next()!)    // .hello(token, client, resume)
        server.send(text: ServerMessage.welcome(Welcome(
            epoch: "e1", rev: 0, sync: .state(["tabIndex": 1]), lastSeq: 0,
            you: SessionIdentity(user: "alice", client: "a1", role: .host), participants: [])).encoded())
        _ = hello
    }

    static func testServer() async throws {
        let server = try TestServer()
        let alice = server.session(user: "alice", client: "a1")
        let bob = server.session(user: "bob", client: "b1", role: .guest)
        await alice.start()
        await bob.start()
        try await alice.apply([.set(JSONPointer(tokens: ["tabIndex"]), 2)])
        _ = await alice.drain(timeout: .seconds(5))          // true once the server acknowledged it
        // … bob's snapshot shows tabIndex 2 …
        await alice.stop()
        await bob.stop()
        await server.shutdown()
    }

    static func inProcessNetwork() async throws {
        let server = try TestServer()
        let network = InProcessTransport(server: server)
        let alice = server.session(user: "alice", client: "a1", transport: network)
        await alice.start()
        network.setReachable(false)                           // new attempts fail as an unreachable server's do
        network.dropConnections()                             // the link drops without a close frame
        try await alice.apply([.set(JSONPointer(tokens: ["tabIndex"]), 3)])   // queued, shown as unsaved
        network.setReachable(true)                            // the session reconnects, resumes, sends it once
        _ = await alice.drain(timeout: .seconds(5))
        await alice.stop()
        await server.shutdown()
    }

    static func sessionLifecycle(session: SyncSession, environment: any AppEnvironment) {
        let lifecycle = SessionLifecycle(session: session, environment: environment)   // PlatformEnvironment.make() on iOS
        lifecycle.start()
        // … lifecycle.conditions.isExpensive …
        lifecycle.stop()
    }

    /// CLIENT.md, "Your backend acting on rooms".
    static func backendActsOnRooms(backendToken: String) async throws -> HistoryPage {
        let rooms = RoomsClient(baseURL: "https://tandem.example.com", token: backendToken)
        let room = try await rooms.room("order-4711")          // state, rev, participants
        try await rooms.write("order-4711", ops: [.add(try JSONPointer(parsing: "/cart/-"), ["sku": "gift-card"])],
                              ifRev: room.rev)                  // .conflict(rev:) when someone wrote first
        let page = try await rooms.history("order-4711", after: 0)  // who changed what, and when
        return page
    }

    static func tlsSystemTrust(id: String, fetchToken: @escaping @Sendable () async throws -> String) {
        let session = SyncSession(url: "wss://cobrowse.example.com/v1/sync", clientID: id, tokenProvider: fetchToken)
        _ = session
    }

    static func tlsPrivateCA(url: String, id: String, fetchToken: @escaping @Sendable () async throws -> String) {
        let transport = WireTransport(tls: .client(additionalTrustRoots: ["/path/to/ca.pem"]))
        let session = SyncSession(url: url, clientID: id, tokenProvider: fetchToken, transport: transport)
        _ = session
    }
}

/// The "The seed's page, wired" section of docs/CLIENT.md (`GuideSnippetTests` counts its glue).
enum SeedPage {
    struct PageState: Codable, Equatable, Sendable {
        var tabIndex = 0
        var contentOffset = ContentOffset.zero
        var addToCartSelected = false
        var marks: [String: Bool] = [:]
    }

    @MainActor final class ProductPageModel {
        let room: SharedRoom<PageState, JSONValue>
        private(set) var bar: NavigationBarState?
        private let scroll: ScrollSync<Int, String>
        private let chrome: ScrollChromeConfiguration
        private let feedback: FeedbackQueue

        init(session: SyncSession, toasts: any FeedbackPresenter) throws {
            let room = try SharedRoom(session: session, initialState: PageState(), presence: JSONValue.self)
            self.room = room
            scroll = ScrollSync(activeTab: 0) { offset in room.update { $0.contentOffset = offset } }
            feedback = FeedbackQueue(presenter: toasts)
        chrome = try ScrollChromeConfiguration(fadeStart: 0, fadeEnd: 200, hysteresis: 4)
            for tab in 0..<2 { scroll.register("list-\(tab)", tab: tab) }
            scroll.register("gallery", tab: 0, role: .nested)      // the photo carousel inside the list: never shared
        }

        func selectTab(_ tab: Int) {
            scroll.activate(tab)
            room.update { $0.tabIndex = tab }
        }

        /// `tab`: the list that scrolled — a tab just left keeps decelerating, and its offsets are not shared.
        func listDidScroll(tab: Int, offset: ContentOffset) {
            if tab == room.state.tabIndex { bar = chrome.next(offset: offset.y, previous: bar) }
            scroll.sourceDidScroll("list-\(tab)", offset: offset)
        }

        func tapAddToCart() async {
            room.update { $0.addToCartSelected.toggle() }
            _ = await feedback.show(.success(room.state.addToCartSelected ? "Added to cart" : "Removed"))
        }

        /// Called when `room.state` changes (observation): shows the other's tab and scroll position.
        func show(scrollTo: (ContentOffset) -> Void, current: ContentOffset) {
            if scroll.activeTab != room.state.tabIndex { scroll.activate(room.state.tabIndex) }
            _ = scroll.applyRemote(room.state.contentOffset, current: current) { _, offset in scrollTo(offset) }
        }
    }
}
