import Testing
import TandemProtocol
@testable import TandemServer

/// `RoomCore` rebasing a patch over what other clients applied after its `base`, with each client's
/// own earlier patches (which its next one was made on) taken into account.
@Suite struct RoomCoreRebaseTests {
    let alice = SessionIdentity(user: "alice", client: "a1", role: .host)
    let bob = SessionIdentity(user: "bob", client: "b1", role: .guest)

    private func ops(_ text: String) throws -> [PatchOp] { try PatchOp.list(from: try JSONValue.parse(text)) }

    private func room(recent: Int = 1_024) throws -> RoomCore {
        var settings = RoomCore.Settings()
        settings.recentCapacity = recent
        var room = RoomCore.create(name: "r", epoch: "e", settings: settings).0
        _ = room.submit(seq: 1, ops: try ops(#"[{"op":"set","path":"/cart","value":["x","y"]}]"#), author: alice)
        return room
    }

    private func cart(_ room: RoomCore) -> JSONValue? {
        if case .object(let members) = room.document.root { members["cart"] } else { nil }
    }

    @Test func theSecondOfTwoPatchesInFlightIsRebasedOverTheChangesAsTheFirstRewroteThem() throws {
        var room = try room()
        // Alice takes out x. Bob, on rev 1, inserts n before x, then removes x (index 1 after his insert).
        guard case .applied = room.submit(seq: 2, ops: try ops(#"[{"op":"remove","path":"/cart/0"}]"#), base: 1, author: alice) else {
            Issue.record("not applied")
            return
        }
        guard case .applied(let first, _, let rebasedFirst) = room.submit(seq: 1, ops: try ops(#"[{"op":"add","path":"/cart/0","value":"n"}]"#), base: 1, author: bob),
              case .applied(let second, _, let rebasedSecond) = room.submit(seq: 2, ops: try ops(#"[{"op":"remove","path":"/cart/1"}]"#), base: 1, author: bob)
        else {
            Issue.record("not applied")
            return
        }
        #expect(try !rebasedFirst && first.ops == (ops(#"[{"op":"add","path":"/cart/0","value":"n"}]"#)))
        // x is gone already: the removal has nothing left to do.
        #expect(rebasedSecond && second.ops.isEmpty)
        #expect(cart(room) == ["n", "y"])
    }

    @Test func aBaseOlderThanTheHistoryIsRefusedOnlyWhenAnArrayChangedAfterIt() throws {
        var room = try room(recent: 2)
        for seq in Int64(2)...4 { _ = room.submit(seq: seq, ops: [.set(JSONPointer(tokens: ["n"]), .number(Double(seq)))], base: seq - 1, author: alice) }
        // Only object members changed after rev 1: nothing to rebase over, though rev 2 is no longer held.
        guard case .applied(_, _, false) = room.submit(seq: 1, ops: try ops(#"[{"op":"remove","path":"/cart/1"}]"#), base: 1, author: bob) else {
            Issue.record("refused")
            return
        }
        _ = room.submit(seq: 5, ops: try ops(#"[{"op":"add","path":"/cart/0","value":"a"}]"#), base: 5, author: alice)
        for seq in Int64(6)...8 { _ = room.submit(seq: seq, ops: [.set(JSONPointer(tokens: ["n"]), .number(Double(seq)))], author: alice) }
        #expect(room.submit(seq: 2, ops: try ops(#"[{"op":"remove","path":"/cart/0"}]"#), base: 5, author: bob)
                == .rejected(seq: 2, .baseTooOld(base: 5, oldest: 7)))
        #expect(cart(room) == ["a", "x"])
        // The code tells the author what to do.
        #expect(PatchError.baseTooOld(base: 5, oldest: 7).code.wireValue == "base_too_old")
    }

    @Test func aPatchWithoutABaseAppliesAsItIs() throws {
        var room = try room()
        _ = room.submit(seq: 2, ops: try ops(#"[{"op":"add","path":"/cart/0","value":"a"}]"#), base: 1, author: alice)
        guard case .applied(let event, _, false) = room.submit(seq: 1, ops: try ops(#"[{"op":"remove","path":"/cart/0"}]"#), author: bob) else {
            Issue.record("not applied as it is")
            return
        }
        #expect(event.ops == (try ops(#"[{"op":"remove","path":"/cart/0"}]"#)))
        #expect(cart(room) == ["x", "y"])
    }

    @Test func aRestoredRoomRebasesOverThePatchesItReplayedFromStorage() throws {
        var original = RoomCore.create(name: "r", epoch: "e", settings: RoomCore.Settings()).0
        let store = InMemoryRoomStore()
        try store.apply([.createRoom(room: "r", epoch: "e", snapshot: Array("{}".utf8))])
        for (seq, text) in [(Int64(1), #"[{"op":"set","path":"/cart","value":["x","y"]}]"#), (2, #"[{"op":"add","path":"/cart/0","value":"a"}]"#)] {
            if case .applied(_, let writes, _) = original.submit(seq: seq, ops: try ops(text), author: alice) { try store.apply(writes) }
        }
        var restored = try RoomCore.restore(from: try #require(try store.loadRoom("r")), settings: RoomCore.Settings())
        // Bob removes y as he saw it at rev 1: the insert before it, replayed at the load, shifts it.
        guard case .applied(let rebased, _, true) = restored.submit(seq: 1, ops: try ops(#"[{"op":"remove","path":"/cart/1"}]"#), base: 1, author: bob) else {
            Issue.record("not rebased")
            return
        }
        #expect(rebased.ops == (try ops(#"[{"op":"remove","path":"/cart/2"}]"#)))
        #expect(cart(restored) == ["a", "x"])
    }
}
