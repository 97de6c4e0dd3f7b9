import Observation
import TandemClient

/// One phone showing the product page, built the way the articles describe: the shared page state in
/// a `SharedRoom`, the product list's scroll shared through `ScrollSync` (the nav bar fading with it),
/// the cart as an optimistic store action with a toast, and the order as a typed pipeline.
@MainActor
final class Device {
    let name: String
    let room: SharedRoom<PageState, Viewer>
    let cart: Store<Cart.State, Cart.Action>
    let feedback: FeedbackQueue
    /// Where this screen's product list is scrolled to.
    private(set) var listOffset = ContentOffset.zero
    /// How the navigation bar looks at that offset.
    private(set) var bar: NavigationBarState?
    /// Offsets this device sent as its own scrolling (an echo of a remote one would count too).
    private(set) var offsetsSent = 0
    private let scroll: ScrollSync<Int, String>
    private let chrome: ScrollChromeConfiguration
    private let shop: Shop
    private let say: @Sendable (String) -> Void
    private var tasks: [Task<Void, Never>] = []

    init(name: String, url: String, token: String, shop: Shop, say: @escaping @Sendable (String) -> Void) throws {
        self.name = name
        self.shop = shop
        self.say = say
        let session = SyncSession(url: url, clientID: "\(name)-phone", tokenProvider: { token }, presence: ["name": .string(name)])
        let room = try SharedRoom(session: session, initialState: PageState(), presence: Viewer.self)
        self.room = room
        chrome = try ScrollChromeConfiguration(fadeStart: 0, fadeEnd: 200, hysteresis: 4)
        let counter = OffsetCounter()
        scroll = ScrollSync(activeTab: 0) { offset in
            counter.count += 1
            room.update { $0.contentOffset = offset }
        }
        offsetCounter = counter
        feedback = FeedbackQueue(presenter: ConsolePresenter(device: name, say: say), timings: FeedbackTimings(success: .milliseconds(150), error: .milliseconds(150)))
        cart = Store(initialState: Cart.State(), reducer: Cart.reducer(shop: shop), middleware: [
            ToastMiddleware.make(queue: feedback, toast: { $0.toast }, didHide: { .toastDidHide($0, $1) }),
        ])
        scroll.register("list-0", tab: 0)
        scroll.register("list-1", tab: 1)
        scroll.register("gallery", tab: 0, role: .nested)
    }

    private let offsetCounter: OffsetCounter

    private final class OffsetCounter {
        var count = 0
    }

    /// Joins the room and starts following it.
    func start() async {
        await room.start()
        tasks.append(Task { await self.follow() })
        tasks.append(Task {
            // The cart's optimistic value (and its rollback) is part of the shared page.
            for await selected in self.cart.values(of: \Cart.State.selected) where selected != self.room.state.addToCartSelected {
                self.room.update { $0.addToCartSelected = selected }
            }
        })
        tasks.append(Task {
            var refreshes = 0
            for await count in self.cart.values(of: \Cart.State.refreshes) where count > refreshes {
                refreshes = count
                self.say("\(self.name): the error toast has disappeared; the page refreshes")
            }
        })
    }

    /// Leaves the room.
    func stop() async {
        for task in tasks { task.cancel() }
        await room.stop()
    }

    var connected: Bool { room.status.connection == .connected }

    // MARK: - What the user does

    func selectTab(_ index: Int) {
        scroll.activate(index)
        room.update { $0.tabIndex = index }
    }

    /// The finger moves the product list (the gallery inside it scrolls too, and is not shared).
    func scrollList(to y: Double) {
        listOffset = ContentOffset(x: 0, y: y)
        bar = chrome.next(offset: y, previous: bar)
        scroll.sourceDidScroll("gallery", offset: ContentOffset(x: y * 2, y: 0))
        scroll.sourceDidScroll("list-\(scroll.activeTab ?? 0)", offset: listOffset)
        offsetsSent = offsetCounter.count
    }

    func tapAddToCart() {
        cart.send(.tap)
    }

    /// Submits the order: upload the photo ∥ post the order, then the toast, then the order page.
    func submitOrder() async throws(PipelineError) {
        let shop = shop
        let feedback = feedback
        let room = room
        let order = Pipeline<Void, Void>(name: "start") { _ in }
            .parallel(name: "upload ∥ post", PipelineStep("upload photo") { _ in try await shop.uploadPhoto() },
                      PipelineStep("post order") { _ in try await shop.postOrder() })
            .then(name: "toast") { (_, number: Int) in
                await feedback.show(.success("Order \(number) placed"))
                return number
            }
            .then(name: "navigate") { number in
                await MainActor.run { room.update { $0.marks["order_placed"] = true } }
                return number
            }
        let number = try await order.run(())
        say("\(name): order \(number) placed; the page shows the order only after its toast disappeared")
    }

    // MARK: - Following the room

    private func follow() async {
        while !Task.isCancelled {
            apply(room.state)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking { _ = room.state } onChange: { continuation.resume() }
            }
        }
    }

    /// Shows the room's state: its tab, and its offset scrolled to without sending it back.
    private func apply(_ state: PageState) {
        if state.tabIndex != scroll.activeTab { scroll.activate(state.tabIndex) }
        scroll.applyRemote(state.contentOffset, current: listOffset) { source, offset in
            listOffset = offset
            bar = chrome.next(offset: offset.y, previous: bar)
            // The list reports the programmatic scroll, as a scroll view does.
            scroll.sourceDidScroll(source, offset: offset)
        }
        offsetsSent = offsetCounter.count
    }
}
