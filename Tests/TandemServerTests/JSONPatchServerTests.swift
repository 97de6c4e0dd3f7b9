import Foundation
import Testing
import TandemProtocol
@testable import TandemServer

/// The RFC 6902 ops through a real server: sequenced like any patch, refused whole with the op's code, and
/// appends from two participants at once both kept.
@Suite struct JSONPatchServerTests {
    /// The next ack or reject `client` gets, skipping what others do.
    private static func nextAnswer(_ client: ProtocolClient) async -> ServerMessage? {
        while let message = await client.next(timeout: .seconds(30)) {
            switch message {
            case .ack, .reject: return message
            default: continue
            }
        }
        return nil
    }

    private func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }

    @Test func concurrentAppendsBothLandAndAFailedTestRefusesThePatchWhole() async throws {
        let harness = try InviteServer()
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "a1")
        let bob = try await harness.connect(token: harness.token(user: "bob", role: .guest), client: "b1")
        guard case .welcome? = await alice.next(timeout: .seconds(30)), case .welcome? = await bob.next(timeout: .seconds(30)) else {
            Issue.record("not welcomed")
            await harness.shutdown()
            return
        }
        try await alice.send(.patch(seq: 1, ops: try ops(#"[{"op":"set","path":"/cart","value":[]},{"op":"set","path":"/price","value":249}]"#)))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 1, rev: 1, duplicate: false))
        // Both add to the cart at once, each from the state it saw.
        try await alice.send(.patch(seq: 2, ops: try ops(#"[{"op":"add","path":"/cart/-","value":"shoes"}]"#)))
        try await bob.send(.patch(seq: 1, ops: try ops(#"[{"op":"test","path":"/price","value":249},{"op":"add","path":"/cart/-","value":"hat"}]"#)))
        let appends = [await Self.nextAnswer(alice), await Self.nextAnswer(bob)]
        #expect(appends.allSatisfy { if case .ack(_, _, false, _)? = $0 { true } else { false } }, "\(appends)")
        // "Add to cart only if the price is still 249", after the price changed.
        try await alice.send(.patch(seq: 3, ops: try ops(#"[{"op":"replace","path":"/price","value":199}]"#)))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 3, rev: 4, duplicate: false))
        try await bob.send(.patch(seq: 2, ops: try ops(#"[{"op":"add","path":"/cart/-","value":"belt"},{"op":"test","path":"/price","value":249}]"#)))
        guard case .reject(let seq, let code, let message)? = await Self.nextAnswer(bob) else {
            Issue.record("no reject")
            await harness.shutdown()
            return
        }
        #expect(seq == 2 && code == .testFailed)
        #expect(message == #"op 1: test failed: the value at "/price" differs"#)
        await alice.socket.close()
        await bob.socket.close()

        let late = try await harness.connect(token: harness.token(user: "carol"), client: "c1")
        guard case .welcome(let welcome)? = await late.next(timeout: .seconds(30)) else {
            Issue.record("carol not welcomed")
            await harness.shutdown()
            return
        }
        #expect(welcome.rev == 4, "\(welcome)")
        guard case .state(let state) = welcome.sync else {
            Issue.record("a fresh join gets the state")
            await harness.shutdown()
            return
        }
        let cart = state["cart"]?.arrayValue ?? []
        #expect(Set(cart) == ["shoes", "hat"] && cart.count == 2, "both appends kept, the refused one applied nothing: \(cart)")
        #expect(state["price"] == 199)
        await late.socket.close()
        await harness.shutdown()
    }

    /// The next patch event `client` gets.
    private static func nextEvent(_ client: ProtocolClient) async -> PatchEvent? {
        while let message = await client.next(timeout: .seconds(30)) {
            if case .patch(let event) = message { return event }
        }
        return nil
    }

    @Test func aPatchOnAnOlderBaseIsRebasedOverWhatOthersAppliedSinceAndItsAckSaysHow() async throws {
        let harness = try InviteServer()
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "a1")
        let bob = try await harness.connect(token: harness.token(user: "bob", role: .guest), client: "b1")
        guard case .welcome? = await alice.next(timeout: .seconds(30)), case .welcome? = await bob.next(timeout: .seconds(30)) else {
            Issue.record("not welcomed")
            await harness.shutdown()
            return
        }
        try await alice.send(.patch(seq: 1, ops: try ops(#"[{"op":"set","path":"/cart","value":["a","b","c"]}]"#), base: 0))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 1, rev: 1, duplicate: false))
        #expect(await Self.nextEvent(bob)?.rev == 1)
        // Alice takes out "a"; Bob, still on rev 1, takes out "c" (index 2 as he sees it) and checks "b".
        try await alice.send(.patch(seq: 2, ops: try ops(#"[{"op":"remove","path":"/cart/0"}]"#), base: 1))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 2, rev: 2, duplicate: false))
        try await bob.send(.patch(seq: 1, ops: try ops(#"[{"op":"test","path":"/cart/1","value":"b"},{"op":"remove","path":"/cart/2"}]"#), base: 1))
        let rebased = try ops(#"[{"op":"test","path":"/cart/0","value":"b"},{"op":"remove","path":"/cart/1"}]"#)
        #expect(await Self.nextAnswer(bob) == .ack(seq: 1, rev: 3, duplicate: false, ops: rebased))
        #expect(await Self.nextEvent(alice)?.ops == rebased, "the others get the ops as applied")
        // A test follows its element past an insert before it.
        try await alice.send(.patch(seq: 3, ops: try ops(#"[{"op":"add","path":"/cart/0","value":"z"}]"#), base: 3))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 3, rev: 4, duplicate: false))
        try await bob.send(.patch(seq: 2, ops: try ops(#"[{"op":"test","path":"/cart/0","value":"b"},{"op":"set","path":"/cart/0","value":"B"}]"#), base: 3))
        #expect(await Self.nextAnswer(bob) == .ack(seq: 2, rev: 5, duplicate: false,
                                                     ops: try ops(#"[{"op":"test","path":"/cart/1","value":"b"},{"op":"set","path":"/cart/1","value":"B"}]"#)))
        // A test of an element someone removed meanwhile fails, whatever now sits at its index.
        try await alice.send(.patch(seq: 4, ops: try ops(#"[{"op":"remove","path":"/cart/1"},{"op":"add","path":"/cart/-","value":"B"}]"#), base: 5))
        #expect(await Self.nextAnswer(alice) == .ack(seq: 4, rev: 6, duplicate: false))
        try await bob.send(.patch(seq: 3, ops: try ops(#"[{"op":"test","path":"/cart/1","value":"B"},{"op":"remove","path":"/cart/1"}]"#), base: 5))
        guard case .reject(3, .testFailed, _)? = await Self.nextAnswer(bob) else {
            Issue.record("the test of a removed element passed")
            await harness.shutdown()
            return
        }
        await alice.socket.close()
        await bob.socket.close()

        let late = try await harness.connect(token: harness.token(user: "carol"), client: "c1")
        guard case .welcome(let welcome)? = await late.next(timeout: .seconds(30)), case .state(let state) = welcome.sync else {
            Issue.record("carol not welcomed with the state")
            await harness.shutdown()
            return
        }
        #expect(state["cart"] == ["z", "B"], "\(state)")
        await late.socket.close()
        await harness.shutdown()
    }
}
