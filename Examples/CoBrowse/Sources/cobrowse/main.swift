import Foundation
import TandemClient
import TandemProxy
import TandemServer
import TandemWire

// Two phones on one product page: alice on a direct link, bob on an impaired one. Every step waits for
// what the other phone must show, and the last line says whether both converged.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Waits (bounded) until `condition` holds on the main actor; ends the program with exit 1 otherwise.
@MainActor func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            say("not converged: gave up waiting for \(what)")
            exit(1)
        }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

var configuration = ServerConfiguration()
configuration.port = 0
configuration.inMemoryStorage = true
configuration.rateLimit = 0
configuration.dataDirectory = NSTemporaryDirectory() + "cobrowse-\(ProcessInfo.processInfo.processIdentifier)"
let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "cobrowse"], logger: .discarding)
let proxyLoop = try EventLoopGroup(threads: 1)
let impaired = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: server.port,
                                    faults: FaultProxy.Faults(latency: .milliseconds(60), jitter: .milliseconds(40)), group: proxyLoop)
func token(_ user: String, _ role: Role) -> String {
    server.tokens.mint(TokenClaims(sub: user, room: "product-42", role: role, exp: server.tokens.currentTime + 600, name: user))
}

let shop = Shop()
let alice = try Device(name: "alice", url: server.syncURL, token: token("alice", .host), shop: shop, say: say)
let bob = try Device(name: "bob", url: "ws://127.0.0.1:\(impaired.port)/v1/sync", token: token("bob", .guest), shop: shop, say: say)
say("alice joins directly; bob through a link of 60 ± 40 ms each way")
await alice.start()
await bob.start()
await waitFor("both phones to connect") { alice.connected && bob.connected && alice.room.others.count == 1 && bob.room.others.count == 1 }
say("alice sees \(alice.room.others.map { $0.presence?.name ?? "?" }); bob sees \(bob.room.others.map { $0.presence?.name ?? "?" })")

alice.selectTab(1)
await waitFor("bob on the reviews tab") { bob.room.state.tabIndex == 1 }
say("alice opens the reviews tab; bob's page switches to it")

for step in 1...40 {
    alice.scrollList(to: Double(step * 10))
    try? await Task.sleep(for: .milliseconds(8))
}
await waitFor("bob's list at 400") { bob.listOffset.y == 400 }
say("alice scrolls the reviews to 400 (\(alice.offsetsSent) offsets, sent at most every 33 ms); bob's list follows to \(bob.listOffset.y)")
say("bob's navigation bar: \(bob.bar.map(\.description) ?? "none"); bob sent back \(bob.offsetsSent) offsets (echoes suppressed)")

bob.tapAddToCart()
await waitFor("the failed add to be rolled back and the page refreshed") { bob.cart.state.refreshes == 1 && !bob.cart.state.selected }
say("bob's first add to cart failed: rolled back on both phones (alice shows \(alice.room.state.addToCartSelected))")
bob.tapAddToCart()
await waitFor("the cart on alice's phone") { alice.room.state.addToCartSelected }
say("bob adds to cart again; alice's page shows the cart selected")

do {
    try await alice.submitOrder()
} catch {
    say("not converged: the order failed: \(error)")
    exit(1)
}
await waitFor("bob to see the order") { bob.room.state.marks["order_placed"] == true }

let settled = await alice.room.settled(timeout: .seconds(20))
let bobSettled = await bob.room.settled(timeout: .seconds(20))
await waitFor("both phones to show the same page") { alice.room.state == bob.room.state }
let page = alice.room.state
await alice.stop()
await bob.stop()
await impaired.shutdown()
server.shutdown()
proxyLoop.shutdown()
try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
guard settled, bobSettled, bob.offsetsSent == 0 else {
    say("not converged: settled \(settled)/\(bobSettled), bob echoed \(bob.offsetsSent) offsets")
    exit(1)
}
say("converged: tabIndex \(page.tabIndex), offset \(page.contentOffset), cart \(page.addToCartSelected), marks \(page.marks.keys.sorted())")
