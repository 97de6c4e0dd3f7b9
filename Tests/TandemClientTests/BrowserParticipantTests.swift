import Foundation
import Synchronization
import Testing
import TandemProtocol
@testable import TandemServer
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// The browser page served at `/`, in real headless Chromium, in one room with Swift clients.
/// Screenshots of every scenario are kept in `.build/artifacts/browser/`.
@Suite(.serialized, .enabled(if: BrowserDriver.shouldRun, "browser tests skipped: \(BrowserDriver.missing ?? "")"))
struct BrowserParticipantTests {
    @Test func theJavaScriptScrollChromeMatchesTheSharedCaseTable() async throws {
        let table = try String(contentsOf: InteropPython.packageRoot.appendingPathComponent("docs/scroll-chrome-cases.json"), encoding: .utf8)
        let room = try BrowserRoom()
        let browser = try await BrowserDriver()
        try await browser.open([("page", room.pageURL(token: nil))])
        let failures = try await browser.evaluate("page", """
            const table = \(table);
            const failures = [];
            let steps = 0;
            for (const testCase of table.cases) {
              const config = TandemScrollChrome.configuration(testCase.configuration);
              let previous = null;
              for (const step of testCase.steps) {
                const state = TandemScrollChrome.next(config, step.offset, previous);
                const e = step.expected;
                steps += 1;
                if (Math.abs(state.backgroundAlpha - e.backgroundAlpha) > 1e-9 || state.titleColor !== e.titleColor
                    || state.statusBarStyle !== e.statusBarStyle || state.castsShadow !== e.castsShadow) {
                  failures.push(testCase.name + ' @ ' + step.offset + ': got ' + JSON.stringify(state));
                }
                previous = state;
              }
            }
            for (const bad of [{ fadeEnd: 0 }, { fadeStart: 10, fadeEnd: 5 }, { fadeEnd: 100, hysteresis: 60 }, { fadeEnd: Infinity }]) {
              try { TandemScrollChrome.configuration(bad); failures.push('accepted ' + JSON.stringify(bad)); } catch (error) {}
            }
            return { failures: failures, steps: steps };
            """, as: TableResult.self)
        #expect(failures.failures == [])
        #expect(failures.steps >= 20, "the whole table ran")
        let status = try await browser.evaluate("page", "return document.getElementById('status').textContent", as: String.self)
        #expect(status.contains("No token"), "a page without a token says how to get one")
        await browser.quit()
        await room.shutdown()
    }

    /// The page state as the Swift app declares it, with defaults the page does not know.
    struct DefaultedPage: Codable, Equatable, Sendable {
        var tabIndex = 2
        var addToCartSelected = false
        var marks: [String: Bool] = ["intro_shown": true]
    }

    @Test @MainActor func aPageReadsTheDefaultsASwiftParticipantFilledIn() async throws {
        let room = try BrowserRoom()
        let browser = try await BrowserDriver()
        try await browser.open([("page", room.pageURL(user: "viewer", role: .viewer))])
        try await browser.waitUntil("page", "return tandemPage.snapshot().status.state === 'connected'")
        #expect(try await browser.evaluate("page", "return tandemPage.session.visible", as: JSONValue.self) == .emptyObject)
        let swift = try SharedRoom(session: room.syncSession(user: "swift", client: "swift-1"), initialState: DefaultedPage(), presence: JSONValue.self)
        await swift.start()
        #expect(await swift.settled(timeout: .seconds(30)))
        try await browser.waitUntil("page", "return tandemPage.session.visible.tabIndex === 2")
        #expect(try await browser.evaluate("page", "return tandemPage.session.visible", as: JSONValue.self)
            == ["tabIndex": 2, "addToCartSelected": false, "marks": ["intro_shown": true]])
        #expect(swift.lastError == nil)
        #expect(try await browser.consoleErrors("page") == [])
        await swift.stop()
        await browser.quit()
        await room.shutdown()
    }

    @Test func twoPagesAndASwiftClientShareTabsScrollMarksAndTheCart() async throws {
        let room = try BrowserRoom()
        let swift = room.session(user: "swift", client: "swift-1")
        await swift.start()
        let browser = try await BrowserDriver()
        try await browser.open([("p1", room.pageURL(user: "alice", name: "Alice")), ("p2", room.pageURL(user: "bob", name: "Bob", role: .guest))])
        for page in ["p1", "p2"] {
            try await browser.waitUntil(page, "return tandemPage.snapshot().status.state === 'connected' && tandemPage.snapshot().participants.length === 3")
        }
        // The token stays in the fragment: not in the WebSocket URL, not in any request the page made.
        let tokenStaysLocal = try await browser.evaluate("p1", """
            return tandemPage.session.url === 'ws://' + location.host + '/v1/sync'
              && performance.getEntriesByType('resource').every((e) => !e.name.includes('eyJ'));
            """, as: Bool.self)
        #expect(tokenStaysLocal)

        // Join and leave toasts: one at a time, each completed only after it has gone.
        try await browser.evaluate("p1", """
            window.mostToasts = 0;
            const toasts = document.getElementById('toasts');
            new MutationObserver(() => { window.mostToasts = Math.max(window.mostToasts, toasts.children.length); })
              .observe(toasts, { childList: true });
            window.completedBefore = tandemPage.toasts.completed.length;
            return true;
            """)
        let carol = room.session(user: "carol", client: "carol-1", presence: ["name": "Carol"])
        await carol.start()
        try await browser.waitUntil("p1", "return tandemPage.snapshot().participants.some(p => p.data.name === 'Carol')")
        await carol.stop()
        try await browser.waitUntil("p1", """
            const completed = tandemPage.toasts.completed.slice(window.completedBefore);
            return completed.includes('Carol joined') && completed.includes('Carol left')
              && completed.indexOf('Carol joined') < completed.indexOf('Carol left') && !document.querySelector('#toasts .toast');
            """, timeout: .seconds(20))
        #expect(try await browser.evaluate("p1", "return window.mostToasts", as: Int.self) == 1, "never two toasts at once")
        // A token's name is the name shown: presence cannot rename its holder.
        let dave = room.session(user: "dave", client: "dave-1", presence: ["name": "Support Team"], name: "Dave")
        await dave.start()
        try await browser.waitUntil("p1", """
            return tandemPage.toasts.completed.includes('Dave joined') && !tandemPage.toasts.completed.includes('Support Team joined')
              && [...document.querySelectorAll('.participant-name')].some(label => label.textContent.startsWith('Dave'));
            """, timeout: .seconds(20))
        await dave.stop()
        try await browser.evaluate("p1", """
            const started = performance.now();
            tandemPage.toasts.show('probe').then(() => {
              window.probe = { gone: ![...document.querySelectorAll('.toast')].some(t => t.textContent === 'probe'), after: performance.now() - started };
            });
            return true;
            """)
        let probe = try await browser.waitUntil("p1", "return window.probe", timeout: .seconds(10))
        let settled = try JSONDecoder().decode(ToastProbe.self, from: probe)
        #expect(settled.gone && settled.after >= 2200, "show() completes only after the toast is gone: \(settled)")

        // A tab click in page 1 shows in page 2 and in the Swift client's state.
        try await browser.click("p1", "#tab-2")
        try await browser.waitUntil("p2", "return document.getElementById('tab-2').getAttribute('aria-selected') === 'true' && document.getElementById('panel-1').hidden && !document.getElementById('panel-2').hidden")
        try await eventually("the Swift client sees tab 2", timeout: .seconds(30)) { swift.state["tabIndex"] == .number(2) }
        try await browser.screenshot("p1", name: "1-tab-click-page1")
        try await browser.screenshot("p2", name: "1-tab-click-page2")

        // A patch from the Swift client scrolls both pages and fades the bar in.
        try await swift.session.apply([Fixtures.set("/contentOffset", ["x": 0, "y": 400]),
                                       Fixtures.set("/marks/video_playing", true), Fixtures.set("/marks/price_sheet_shown", true)])
        for page in ["p1", "p2"] {
            try await browser.waitUntil(page, """
                const s = tandemPage.snapshot();
                return Math.abs(s.scrollTop - 400) < 1 && s.bar.backgroundAlpha === 1 && s.bar.titleColor === 'primary' && s.bar.castsShadow
                  && document.getElementById('navbar').dataset.title === 'primary'
                  && [...document.querySelectorAll('#badges .badge')].map(b => b.textContent).join() === 'price_sheet_shown,video_playing';
                """)
        }
        try await browser.screenshot("p2", name: "2-swift-patch-scrolls-page2")
        try await browser.screenshot("p1", name: "2-swift-patch-scrolls-page1")

        // Scrolling in page 1 goes out coalesced (at most one patch per slot, the newest offset wins).
        // Page 2 follows it smoothly: every animation frame's position is recorded.
        try await browser.evaluate("p2", """
            window.followed = [];
            const record = () => { window.followed.push(document.getElementById('detail').scrollTop); requestAnimationFrame(record); };
            requestAnimationFrame(record);
            return true;
            """)
        let before = try await browser.evaluate("p1", "return tandemPage.session.seq", as: Int.self)
        try await browser.evaluate("p1", """
            const detail = document.getElementById('detail');
            window.scrollDone = false;
            const started = performance.now();
            let y = 400;
            const step = () => {
              y -= 5; detail.scrollTop = y;
              if (y > 100) { setTimeout(step, 4); } else { window.scrollElapsed = performance.now() - started; window.scrollDone = true; }
            };
            step();
            return true;
            """)
        try await browser.waitUntil("p1", "return window.scrollDone && tandemPage.snapshot().state.contentOffset.y === 100 && tandemPage.snapshot().pending === 0")
        let sent = try await browser.evaluate("p1", "return tandemPage.session.seq", as: Int.self) - before
        try await eventually("the last offset reaches the Swift client", timeout: .seconds(30)) {
            swift.state["contentOffset"]?["y"] == .number(100)
        }
        try await browser.waitUntil("p2", "return Math.abs(tandemPage.snapshot().scrollTop - 100) < 1 && tandemPage.snapshot().bar.titleColor === 'inverted'")
        let followed = try await browser.evaluate("p2", "return window.followed", as: [Double].self)
        #expect(zip(followed, followed.dropFirst()).allSatisfy { $1 <= $0 + 0.5 }, "the follower never moved back up: \(followed)")
        #expect(followed.contains { $0 < 399 && $0 > 101 }, "it passed through the way down")
        // At most one patch per slot while scrolling (on loopback a 120 Hz frame), plus the last one after it:
        // a bound from the time the scroll really took (a loaded machine stretches the 4 ms steps).
        let elapsed = try await browser.evaluate("p1", "return Math.ceil(window.scrollElapsed)", as: Int.self)
        #expect(sent >= 1 && sent <= min(elapsed * 120 / 1000 + 2, 59), "60 scroll positions in \(elapsed) ms went out as \(sent) patches")

        // Add to cart in page 2 reaches everyone.
        try await browser.click("p2", "#add-to-cart")
        try await eventually("the Swift client sees the cart", timeout: .seconds(30)) { swift.state["addToCartSelected"] == .bool(true) }
        try await browser.waitUntil("p1", "return document.getElementById('add-to-cart').getAttribute('aria-pressed') === 'true'")
        try await browser.screenshot("p1", name: "3-cart-and-marks-page1")
        for page in ["p1", "p2"] {
            #expect(try await browser.consoleErrors(page) == [], "no script errors or CSP violations in \(page)")
        }
        await browser.quit()
        await swift.stop()
        await room.shutdown()
    }

    /// Whatever the server accepts, every participant reads back the same: random patches at the edges of the
    /// limits (deepest values, most ops, largest messages, a document filled towards its size limit, awkward keys
    /// and numbers) are acknowledged, then read by Swift sessions (patch by patch and as a snapshot), by pages
    /// (patch by patch and as a snapshot) and by the Python peer, all equal to the generator's own model.
    @Test(arguments: [UInt64(27), 2_027])
    func patchesAtTheLimitsReadTheSameInSwiftTheBrowserAndPython(seed: UInt64) async throws {
        let room = try BrowserRoom(maxDocument: 160_000)
        let follower = room.session(user: "follower", client: "follower-1")
        await follower.start()
        let browser = try await BrowserDriver()
        try await browser.open([("live", room.pageURL(user: "live", role: .guest))])
        try await browser.waitUntil("live", "return tandemPage.snapshot().status.state === 'connected'")

        let writer = room.syncSession(user: "writer", client: "writer-1")
        let rejects = StreamLog(writer.events)
        await writer.start()
        #expect(await writer.waitUntilConnected(timeout: .seconds(30)))
        var generator = BoundaryPatches(seed: seed, limits: SessionLimits(maxDocument: 160_000))
        var patches = 0, deepest = 0, mostOps = 0, largest = 0
        while let ops = generator.next() {
            try await writer.apply(ops)
            patches += 1
            mostOps = max(mostOps, ops.count)
            largest = max(largest, ClientMessage.patch(seq: 1, ops: ops).encoded().count)
            for case .set(let path, let value) in ops { deepest = max(deepest, path.tokens.count + value.depth) }
        }
        #expect(await writer.drain(timeout: .seconds(60)))
        let refused = rejects.all.compactMap { if case .rejected(_, let code, let message, _) = $0 { "\(code): \(message)" } else { nil } }
        #expect(refused == [], "the server refused patches the limits allow")
        #expect(deepest == PatchLimits.defaultMaxDepth && mostOps == 100 && largest > 48_000 && generator.document.byteCount > 140_000,
                "the patches reach the limits: depth \(deepest), ops \(mostOps), largest message \(largest) bytes, \(generator.document.byteCount) bytes in \(patches) patches")
        let expected = try #require(generator.document.root["edge"])
        let rev = await writer.snapshot.rev

        // Swift: the writer, a follower that got every patch event, and a late joiner's snapshot.
        #expect(await writer.snapshot.state["edge"] == expected)
        #expect(await eventually { follower.state["edge"] == expected }, "the following Swift session differs")
        let late = room.syncSession(user: "late", client: "late-1", role: .viewer)
        await late.start()
        #expect(await late.waitUntilConnected(timeout: .seconds(30)))
        #expect(await late.snapshot.state["edge"] == expected, "the Swift snapshot differs")

        // The browser: the page that followed every patch, and a page opened now.
        try await browser.open([("late", room.pageURL(user: "latepage", role: .viewer))])
        for page in ["live", "late"] {
            try await browser.waitUntil(page, "return tandemPage.snapshot().rev === \(rev)", timeout: .seconds(60))
            let text = try await browser.evaluate(page, "return JSON.stringify(tandemPage.snapshot().state.edge)", as: String.self)
            #expect(try JSONValue.parseStored(Array(text.utf8)) == expected, "the \(page) page reads a different state")
        }
        #expect(try await browser.consoleErrors("live") == [])

        // Python's json module, through a third-party WebSocket client.
        let python = try PythonPeer(script: "read_room.py", arguments: [room.syncURL, room.token(user: "py", name: nil, role: .viewer), "py-1"])
        #expect(try await python.exitStatus(timeout: .seconds(30)) == 0, "python reader failed: \(python.stderr)")
        let line = try #require(python.stdout.split(separator: "\n").first)
        let read = try JSONValue.parseStored(Array(line.utf8))
        #expect(read["rev"] == .number(Double(rev)))
        #expect(read["state"]?["edge"] == expected, "the Python peer reads a different state")

        await late.stop()
        await writer.stop()
        await follower.stop()
        await browser.quit()
        await room.shutdown()
    }

    /// The report's attack on real processes: a guest of a real `tandem serve` sends a patch 70 levels deep and
    /// one with a value 60 deep under 10 levels of path; both are refused, and then `tandem join` and the
    /// page still join that room and work in it.
    @Test func aGuestsDeepPatchesAreRefusedAndTandemJoinAndThePageStillWork() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-poison-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secret = "poison"
        let (server, url) = try await offload { try ServeProcess.serve(data: data, secret: secret) }
        defer { server.terminate(); server.waitUntilExit() }
        let tokens = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                   now: { Int64(Date().timeIntervalSince1970) })
        func token(_ user: String, _ role: Role) -> String {
            tokens.mint(TokenClaims(sub: user, room: "shop", role: role, exp: tokens.currentTime + 600))
        }

        // The guest speaks the protocol directly, as a hostile client would.
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let guest = try await WebSocketClient.connect(url: url, subprotocols: [TandemProtocol.subprotocol], on: group.next())
        let inbox = Mailbox<WebSocketClientEvent>()
        Task { for await event in guest.events { inbox.push(event) } }
        func nextMessage() async -> ServerMessage? {
            while case .text(let bytes)? = await inbox.next(timeout: .seconds(10)) {
                if let message = try? ServerMessage.decode(bytes), message.type != "join", message.type != "presence" { return message }
            }
            return nil
        }
        var deepPath = JSONPointer(tokens: Array(repeating: "x", count: 70))
        var deepValue: JSONValue = 1
        for _ in 0..<60 { deepValue = ["x": deepValue] }
        try await guest.send(text: ClientMessage.hello(Hello(token: token("mallory", .guest), client: "m1")).encoded())
        guard case .welcome? = await nextMessage() else { Issue.record("no welcome for the guest"); return }
        try await guest.send(text: ClientMessage.patch(seq: 1, ops: [.set(deepPath, 1)]).encoded())
        guard case .reject(1, .tooDeep, _)? = await nextMessage() else { Issue.record("the 70-level path was not refused"); return }
        deepPath = JSONPointer(tokens: Array(repeating: "x", count: 10))
        try await guest.send(text: ClientMessage.patch(seq: 2, ops: [.set(deepPath, deepValue)]).encoded())
        guard case .reject(2, .tooDeep, _)? = await nextMessage() else { Issue.record("the 60-level value was not refused"); return }
        try await guest.send(text: ClientMessage.patch(seq: 3, ops: [.set(JSONPointer(tokens: ["note"]), "hi")]).encoded())
        guard case .ack(3, _, _, _)? = await nextMessage() else { Issue.record("the guest's ordinary patch was not acknowledged"); return }

        // `tandem join`, the real binary: joins, applies a line, prints the state and exits 0.
        let printed = try await TandemRun.run(["join", "--url", url, "--token", token("alice", .host), "--client", "cli-1", "--drain-timeout", "20"],
                                              input: [#"[{"op":"set","path":"/tabIndex","value":2}]"#])
        #expect(printed.status == 0, "tandem join failed: \(printed.stderr)")
        let states = printed.events("state")
        #expect(states.last?["state"] == ["note": "hi", "tabIndex": 2] && states.last?["pending"] == 0)

        // The page joins the same room and shows the state.
        let browser = try await BrowserDriver()
        let base = url.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(of: "/v1/sync", with: "")
        try await browser.open([("page", "\(base)/#token=\(token("bob", .guest))")])
        try await browser.waitUntil("page", "const s = tandemPage.snapshot(); return s.status.state === 'connected' && s.state.tabIndex === 2 && s.state.note === 'hi'")
        #expect(try await browser.consoleErrors("page") == [])
        await browser.quit()
        await guest.close()
    }

    /// The page over HTTPS from a real `tandem serve --tls-cert`: it connects with `wss://` (the page picks the
    /// scheme from its own location) and shares the room with a Swift session that verifies the test CA.
    @Test func thePageOverHTTPSSyncsWithASwiftSessionOverWSS() async throws {
        let certificates = try TestCertificates.forTests()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-https-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secret = "https-page"
        let (server, url) = try await offload {
            try ServeProcess.serve(data: data, secret: secret, extra: ["--tls-cert", certificates.serverChain, "--tls-key", certificates.serverKey])
        }
        defer { server.terminate(); server.waitUntilExit() }
        let tokens = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                   now: { Int64(Date().timeIntervalSince1970) })
        func token(_ user: String, _ role: Role) -> String {
            tokens.mint(TokenClaims(sub: user, room: "shop", role: role, exp: tokens.currentTime + 600))
        }
        let swiftToken = token("swift", .host)
        let swift = SyncSession(url: url, clientID: "swift-1", tokenProvider: { swiftToken },
                                transport: WireTransport(tls: .client(additionalTrustRoots: [certificates.caFile])))
        await swift.start()
        #expect(await swift.waitUntilConnected(timeout: .seconds(10)))
        try await swift.apply([Fixtures.set("/marks/price_sheet_shown", true)])
        let browser = try await BrowserDriver()
        let base = url.replacingOccurrences(of: "wss://", with: "https://").replacingOccurrences(of: "/v1/sync", with: "")
        try await browser.open([("page", "\(base)/#token=\(token("guest", .guest))")])
        try await browser.waitUntil("page", "const s = tandemPage.snapshot(); return s.status.state === 'connected' && s.state.marks && s.state.marks.price_sheet_shown === true")
        try await browser.click("page", "#tab-2")
        #expect(await eventually { await swift.snapshot.state["tabIndex"] == .number(2) }, "the Swift session sees the page's tab")
        #expect(try await browser.evaluate("page", "return location.protocol", as: String.self) == "https:")
        #expect(try await browser.consoleErrors("page") == [])
        await browser.quit()
        await swift.stop()
    }

    @Test func aHostScrubsThePageBackThroughItsHistoryAndReturnsToLive() async throws {
        let room = try BrowserRoom()
        let rooms = room.rooms(token: room.token(user: "backend", name: nil, role: .host))
        try await rooms.write("demo", ops: [Fixtures.set("/tabIndex", 1)])
        try await rooms.write("demo", ops: [Fixtures.set("/addToCartSelected", true)])
        try await rooms.write("demo", ops: [Fixtures.set("/tabIndex", 2)])
        let browser = try await BrowserDriver()
        try await browser.open([("host", room.pageURL()), ("viewer", room.pageURL(user: "vera", role: .viewer))])
        try await browser.waitUntil("host", "const s = tandemPage.snapshot(); return s.status.state === 'connected' && s.rev === 3 && !document.getElementById('timeline').hidden")
        try await browser.waitUntil("viewer", "return tandemPage.snapshot().status.state === 'connected'")
        #expect(try await browser.evaluate("viewer", "return document.getElementById('timeline').hidden", as: Bool.self), "only hosts get the timeline")
        // Back to rev 1: the page shows that state, read-only, while live changes keep arriving.
        try await browser.evaluate("host", """
            const range = document.getElementById('timeline-range');
            range.value = '1';
            range.dispatchEvent(new Event('input'));
            return true
            """)
        try await browser.waitUntil("host", """
            return document.getElementById('tab-1').getAttribute('aria-selected') === 'true'
              && document.getElementById('add-to-cart').getAttribute('aria-pressed') === 'false'
              && [...document.querySelectorAll('button[data-control]')].every(b => b.disabled)
              && document.getElementById('timeline-label').textContent.startsWith('rev 1 of')
            """)
        #expect(try await browser.evaluate("host", "return tandemPage.session.change([{ op: 'set', path: '/tabIndex', value: 0 }])", as: Bool.self) == true,
                "the session itself still works")
        try await rooms.write("demo", ops: [Fixtures.set("/marks/video_playing", true)])
        try await browser.waitUntil("host", "return tandemPage.snapshot().rev === 5 && document.getElementById('tab-1').getAttribute('aria-selected') === 'true'")
        try await browser.click("host", "#timeline-live")
        try await browser.waitUntil("host", """
            return document.getElementById('tab-0').getAttribute('aria-selected') === 'true'
              && document.querySelector('[data-mark="video_playing"]') !== null
              && !document.getElementById('add-to-cart').disabled && tandemPage.snapshot().shownRev === null
            """)
        #expect(try await browser.consoleErrors("host") == [])
        await browser.quit()
        await room.shutdown()
    }

    @Test func aViewerPageShowsEverythingButCannotChangeAnything() async throws {
        let room = try BrowserRoom()
        let swift = room.session(user: "swift", client: "swift-1")
        await swift.start()
        try await swift.session.apply([Fixtures.set("/tabIndex", 1), Fixtures.set("/marks/price_sheet_shown", true),
                                       Fixtures.set("/contentOffset", ["x": 0, "y": 120])])
        let browser = try await BrowserDriver()
        try await browser.open([("viewer", room.pageURL(user: "vera", name: "Vera", role: .viewer))])
        try await browser.waitUntil("viewer", """
            const s = tandemPage.snapshot();
            return s.status.state === 'connected' && s.role === 'viewer' && s.state.tabIndex === 1 && Math.abs(s.scrollTop - 120) < 1
              && !document.getElementById('role').hidden
              && [...document.querySelectorAll('button[data-control]')].every(b => b.disabled);
            """)
        // Every control: real clicks, a programmatic change, a scroll, and a hand-made patch on the socket.
        for control in ["#tab-0", "#tab-2", "#add-to-cart", "#video", "#price-sheet"] {
            try await browser.click("viewer", control)
        }
        let accepted = try await browser.evaluate("viewer", """
            const accepted = tandemPage.session.change([{ op: 'set', path: '/tabIndex', value: 0 }]);
            document.getElementById('detail').scrollTop = 600;
            tandemPage.session.send({ type: 'patch', seq: 99, ops: [{ op: 'set', path: '/addToCartSelected', value: true }] });
            return accepted;
            """, as: Bool.self)
        #expect(!accepted)
        try await browser.waitUntil("viewer", "return tandemPage.toasts.completed.concat(tandemPage.toasts.current ? [tandemPage.toasts.current.text] : []).some(t => t.startsWith('Change undone'))")
        // A later change from the host arrives; the viewer's attempts left no trace anywhere.
        try await swift.session.apply([Fixtures.set("/marks/video_playing", true)])
        try await browser.waitUntil("viewer", "return 'video_playing' in tandemPage.snapshot().state.marks")
        let state = swift.state
        #expect(state["tabIndex"] == .number(1))
        #expect(state["addToCartSelected"] == nil)
        #expect(state["contentOffset"]?["y"] == .number(120))
        #expect(state["marks"] == ["price_sheet_shown": true, "video_playing": true])
        let viewerState = try await browser.evaluate("viewer", "return tandemPage.snapshot().state", as: JSONValue.self)
        #expect(viewerState == state)
        try await browser.evaluate("viewer", "document.getElementById('detail').scrollTop = 120; return true")
        try await browser.screenshot("viewer", name: "4-viewer")
        #expect(try await browser.consoleErrors("viewer") == [])
        await browser.quit()
        await swift.stop()
        await room.shutdown()
    }

    @Test func pagesReconnectAndResumeWithoutAReloadWhenTheServerRestarts() async throws {
        let room = try BrowserRoom()
        let swift = room.session(user: "swift", client: "swift-1")
        await swift.start()
        let browser = try await BrowserDriver()
        try await browser.open([("p1", room.pageURL(user: "alice", name: "Alice")), ("p2", room.pageURL(user: "bob", name: "Bob", role: .guest))])
        try await browser.click("p1", "#tab-1")
        for page in ["p1", "p2"] {
            try await browser.waitUntil(page, "return tandemPage.snapshot().status.state === 'connected' && tandemPage.snapshot().state.tabIndex === 1 && tandemPage.snapshot().pending === 0")
            try await browser.evaluate(page, "window.loadedOnce = performance.timeOrigin; return true")
        }

        await room.stopServer()
        try await browser.waitUntil("p1", "return tandemPage.snapshot().status.state === 'reconnecting'")
        // A change made while the server is away is visible at once and delivered after the resume.
        try await browser.click("p1", "#add-to-cart")
        try await browser.waitUntil("p1", "return tandemPage.snapshot().state.addToCartSelected === true && /Reconnecting/.test(tandemPage.snapshot().status.text)")
        try await browser.screenshot("p1", name: "5-server-down-page1")

        try await room.restartServer()
        for page in ["p1", "p2"] {
            try await browser.waitUntil(page, """
                const s = tandemPage.snapshot();
                return s.status.state === 'connected' && s.status.welcome === 'resumed' && s.status.reconnects >= 1
                  && s.state.addToCartSelected === true && s.pending === 0 && window.loadedOnce === performance.timeOrigin;
                """, timeout: .seconds(45))
        }
        try await eventually("the Swift client sees the change made while the server was down", timeout: .seconds(45)) {
            swift.state["addToCartSelected"] == .bool(true) && swift.state["tabIndex"] == .number(1)
        }
        try await browser.screenshot("p2", name: "6-resumed-page2")
        for page in ["p1", "p2"] {
            #expect(try await browser.consoleErrors(page).allSatisfy { $0.contains("/v1/sync") }, "only the refused reconnects are logged")
        }
        await browser.quit()
        await swift.stop()
        await room.shutdown()
    }

    @Test func anInvitationLinkAsksForANameJoinsAsGuestAndAReloadStaysJoined() async throws {
        // A long presence grace: a page that left without a clean close would stay listed for the whole test.
        let room = try BrowserRoom(presenceGrace: .seconds(120))
        let host = room.session(user: "swift", client: "swift-1")
        await host.start()
        let invitation = try await room.invites(token: room.token(user: "swift", name: nil, role: .host)).createInvite(role: .guest, ttl: 600, uses: 1)
        // The URL `tandem invite` prints is the page with the code in the fragment.
        #expect(invitation.url == "\(room.baseURL)/#invite=\(invitation.code)")
        let browser = try await BrowserDriver()
        try await browser.open([("guest", invitation.url ?? ""), ("late", invitation.url ?? "")])
        let formShown = """
            return !document.getElementById('invite').hidden && document.getElementById('stage').inert
              && document.activeElement === document.getElementById('invite-name')
              && document.getElementById('status').dataset.state === 'invited' && typeof window.tandemPage === 'undefined';
            """
        for page in ["guest", "late"] {
            try await browser.waitUntil(page, formShown)
        }

        // The field is bounded by the server's limit, which the page read from the settings the index carries.
        #expect(try await browser.evaluate("guest", "return document.getElementById('invite-name').maxLength", as: Int.self) == InviteRoutes.maxNameBytes)

        // A blank name is refused in the page; nothing is sent.
        try await browser.type("guest", "#invite-name", "   ")
        try await browser.click("guest", "#invite-join")
        try await browser.waitUntil("guest", """
            return document.getElementById('invite-error').textContent.startsWith('Enter your name')
              && document.getElementById('invite-name').getAttribute('aria-invalid') === 'true';
            """)

        // Too long for the server (40 two-byte letters are 80 bytes): refused in the page too. Typing clears the complaint.
        try await browser.evaluate("guest", "document.getElementById('invite-name').value = ''; return true")
        try await browser.type("guest", "#invite-name", String(repeating: "é", count: 40))
        try await browser.waitUntil("guest", "return document.getElementById('invite-error').textContent === ''")
        try await browser.click("guest", "#invite-join")
        try await browser.waitUntil("guest", "return document.getElementById('invite-error').textContent.startsWith('Use a shorter name')")
        #expect(try await browser.evaluate("guest", "return performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/invites')).length", as: Int.self) == 0)

        // The name is sent trimmed.
        try await browser.evaluate("guest", "document.getElementById('invite-name').value = ''; return true")
        try await browser.type("guest", "#invite-name", "  Bob Builder  ")
        try await browser.waitUntil("guest", "return document.getElementById('invite-error').textContent === ''")
        try await browser.screenshot("guest", name: "7-invite-form")
        try await browser.click("guest", "#invite-join")
        try await browser.waitUntil("guest", """
            if (typeof window.tandemPage === 'undefined') return false;
            const s = tandemPage.snapshot();
            return s.status.state === 'connected' && s.role === 'guest' && document.getElementById('invite').hidden
              && s.participants.some(p => p.you && p.data.name === 'Bob Builder') && location.hash.startsWith('#token=');
            """)
        let guestUser = try await browser.evaluate("guest", "return tandemPage.snapshot().participants.find(p => p.you).user", as: String.self)
        // The code went out once, in the accept's path; the token is in no request at all.
        let requests = try await browser.evaluate("guest", "return performance.getEntriesByType('resource').map(e => e.name)", as: [String].self)
        #expect(requests.filter { $0.contains(invitation.code) } == ["\(room.baseURL)/v1/invites/\(invitation.code)/accept"])
        #expect(!requests.contains { $0.contains("eyJ") || $0.contains("?") })
        try await eventually("the host sees the guest by name", timeout: .seconds(30)) {
            host.participants.contains { $0.user == guestUser && $0.role == .guest && $0.name == "Bob Builder" && $0.data["name"] == "Bob Builder" }
        }
        try await browser.click("guest", "#tab-2")
        try await eventually("the host sees the guest's change", timeout: .seconds(30)) { host.state["tabIndex"] == .number(2) }
        try await browser.screenshot("guest", name: "8-invite-joined")

        // The same single-use link in another browser: 410, said in the form, and no connection.
        try await browser.type("late", "#invite-name", "Eve")
        try await browser.click("late", "#invite-join")
        let refusal = """
            const error = document.getElementById('invite-error').textContent;
            return error.startsWith('This invitation has expired or was already used.') && error.includes('used already')
              && document.getElementById('invite-join').disabled && document.getElementById('invite-name').disabled
              && typeof window.tandemPage === 'undefined' && document.getElementById('status').dataset.state === 'closed';
            """
        try await browser.waitUntil("late", refusal)
        try await browser.screenshot("late", name: "9-invite-used-up")
        #expect(host.participants.count == 2, "only the host and the guest: \(host.participants)")

        // A reload of the guest's page reconnects with the token from the fragment (the code would be 410 now).
        try await browser.evaluate("guest", "sessionStorage.setItem('before', String(performance.timeOrigin)); return true")
        try await browser.reload("guest")
        try await browser.waitUntil("guest", """
            if (typeof window.tandemPage === 'undefined') return false;
            const s = tandemPage.snapshot();
            return s.status.state === 'connected' && s.state.tabIndex === 2 && document.getElementById('invite').hidden
              && s.participants.some(p => p.you && p.data.name === 'Bob Builder') && sessionStorage.getItem('before') !== String(performance.timeOrigin)
              && !performance.getEntriesByType('resource').some(e => e.name.includes('/v1/invites'));
            """)
        // The page left cleanly before reloading: one entry for the guest, not a second one in its grace period.
        try await browser.waitUntil("guest", "return tandemPage.snapshot().participants.length === 2")
        try await eventually("the reloaded guest is in the host's list once", timeout: .seconds(30)) {
            host.participants.filter { $0.user == guestUser }.count == 1 && host.participants.count == 2
        }
        try await browser.screenshot("guest", name: "10-invite-reloaded")

        // An unknown code is 404; after ten failed accepts from this address the next one is throttled (429).
        try await browser.evaluate("late", "history.replaceState(null, '', '/#invite=000000'); return true")
        try await browser.reload("late")
        try await browser.waitUntil("late", formShown)
        try await browser.type("late", "#invite-name", "Eve")
        try await browser.click("late", "#invite-join")
        try await browser.waitUntil("late", "return document.getElementById('invite-error').textContent.startsWith('No invitation has this code.') && document.getElementById('invite-join').disabled")
        let guesser = room.invites(token: nil)
        for attempt in 0..<8 {
            await #expect(throws: InviteError.self) { try await guesser.acceptInvite(code: "99999\(attempt)", name: "Guess") }
        }
        try await browser.evaluate("late", "history.replaceState(null, '', '/#invite=111111'); return true")
        try await browser.reload("late")
        try await browser.waitUntil("late", formShown)
        try await browser.type("late", "#invite-name", "Eve")
        try await browser.click("late", "#invite-join")
        try await browser.waitUntil("late", """
            const error = document.getElementById('invite-error').textContent;
            const button = document.getElementById('invite-join');
            return error.startsWith('Too many attempts.') && /try again in [0-9]+ s/.test(error)
              && button.disabled && /^Try again in [0-9]+ s$/.test(button.textContent) && !document.getElementById('invite-name').disabled;
            """)
        try await browser.screenshot("late", name: "11-invite-throttled")
        for page in ["guest", "late"] {
            #expect(try await browser.consoleErrors(page).allSatisfy { $0.contains("/v1/invites/") }, "only the refused accepts are logged in \(page)")
        }
        await browser.quit()
        await host.stop()
        await room.shutdown()
    }
}

private struct ToastProbe: Decodable {
    var gone: Bool
    var after: Double
}

private struct TableResult: Decodable {
    var failures: [String]
    var steps: Int
}

/// A Swift participant: a `SyncSession`, its latest visible state and the room's participants as it sees them.
private struct SwiftParticipant: Sendable {
    let session: SyncSession
    private let latest: StateBox

    init(session: SyncSession) {
        self.session = session
        latest = StateBox()
        let latest = self.latest
        Task {
            for await event in session.events {
                switch event {
                case .stateChanged(let snapshot): latest.value.withLock { $0 = snapshot.state }
                case .synchronized(_, _, _, let participants): latest.people.withLock { $0 = participants }
                case .joined(let participant):
                    latest.people.withLock { people in
                        people.removeAll { $0.client == participant.client }
                        people.append(participant)
                    }
                case .presenceChanged(let peer, let data):
                    latest.people.withLock { people in
                        for index in people.indices where people[index].client == peer.client { people[index].data = data }
                    }
                case .left(let peer): latest.people.withLock { $0.removeAll { $0.client == peer.client } }
                default: break
                }
            }
        }
    }

    var state: JSONValue { latest.value.withLock { $0 } }
    var participants: [Participant] { latest.people.withLock { $0 } }

    func start() async { await session.start() }
    func stop() async { await session.stop() }
}

private final class StateBox: Sendable {
    let value = Mutex<JSONValue>(.emptyObject)
    let people = Mutex<[Participant]>([])
}

/// A room's server for the page tests: on a fixed loopback port and data folder, stopped and started again.
private final class BrowserRoom: Sendable {
    private let server: RestartableServer

    /// `presenceGrace` (ms) is how long a dropped page stays in the participant list; `maxDocument` the
    /// room's document size limit.
    init(presenceGrace: Duration = ServerConfiguration().presenceGrace, maxDocument: Int = ServerConfiguration().maxDocumentBytes) throws {
        server = try RestartableServer(secret: "browser") { configuration in
            configuration.maxDocumentBytes = maxDocument
            configuration.presenceGrace = presenceGrace
        }
    }

    private var group: EventLoopGroup { server.group }
    private var port: Int { server.port }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func token(user: String, name: String?, role: Role) -> String {
        server.token(user: user, room: "demo", role: role, name: name)
    }

    func pageURL(user: String = "alice", name: String? = nil, role: Role = .host) -> String {
        "\(baseURL)/#token=\(token(user: user, name: name, role: role))"
    }

    func pageURL(token: String?) -> String {
        token.map { "\(baseURL)/#token=\($0)" } ?? "\(baseURL)/"
    }

    func invites(token: String?) -> InviteClient {
        InviteClient(baseURL: baseURL, token: token, group: group, timeout: .seconds(30))
    }

    func rooms(token: String) -> RoomsClient {
        RoomsClient(baseURL: baseURL, token: token, group: group, timeout: .seconds(30))
    }

    func session(user: String, client: String, presence: JSONValue? = nil, name: String? = nil) -> SwiftParticipant {
        SwiftParticipant(session: syncSession(user: user, client: client, presence: presence, name: name))
    }

    /// A session whose events the test reads itself.
    func syncSession(user: String, client: String, role: Role = .host, presence: JSONValue? = nil, name: String? = nil) -> SyncSession {
        let minted = token(user: user, name: name, role: role)
        let configuration = SyncSessionConfiguration(reconnect: ReconnectPolicy(backoff: Backoff(base: .seconds(0.05), cap: .seconds(0.5))))
        return SyncSession(url: syncURL, clientID: client, tokenProvider: { minted }, presence: presence, configuration: configuration, transport: WireTransport(group: group))
    }

    var syncURL: String { "ws://127.0.0.1:\(port)/v1/sync" }

    func stopServer() async { await server.stop() }

    /// Starts a new server on the same port and data folder.
    func restartServer() async throws { try await server.start() }

    func shutdown() async { await server.shutdown() }
}
