import Testing
import TandemProtocol
@testable import TandemServer

@Suite("Edit history")
struct EditHistoryTests {
    /// Client "a" of user "u".
    static let a = Peer(user: "u", client: "a")

    /// A history of `count` patches from `a`, each inserting at the front of `/l`.
    static func inserts(capacity: Int, count: Int) -> EditHistory {
        var history = EditHistory(capacity: capacity)
        for rev in 1...Int64(count) { history.record(rev: rev, author: Self.a, edits: [ArrayEdit(.insert, array: [.member("l")], index: 0)]) }
        return history
    }

    static let replaceFirst = [PatchOp.replace(JSONPointer(tokens: ["l", "0"]), .string("y"))]

    /// Where `replace /l/0`, made on `base`, lands at `latest`.
    static func landing(_ history: EditHistory, base: Int64, latest: Int64) throws -> [PatchOp] {
        try history.rebase(replaceFirst, base: base, latest: latest, author: Peer(user: "u", client: "b"), context: nil).ops
    }

    @Test("it holds exactly the newest `capacity` entries, across its runs", arguments: [1, 31, 32, 40, 64, 100])
    func holdsTheNewest(capacity: Int) throws {
        let history = Self.inserts(capacity: capacity, count: 150)
        let oldest = Int64(150 - capacity + 1)
        #expect(try Self.landing(history, base: oldest - 1, latest: 150) == [.replace(JSONPointer(tokens: ["l", "\(capacity)"]), .string("y"))])
        #expect(throws: PatchError.baseTooOld(base: oldest - 2, oldest: oldest - 1)) { try Self.landing(history, base: oldest - 2, latest: 150) }
    }

    @Test("a copy is independent: what the original records later is not in the copy, and the other way round")
    func copiesAreIndependent() throws {
        var original = Self.inserts(capacity: 40, count: 70)
        var copy = original
        for rev in Int64(71)...100 { original.record(rev: rev, author: Self.a, edits: [ArrayEdit(.insert, array: [.member("l")], index: 0)]) }
        copy.record(rev: 71, author: Self.a, edits: [])
        // The copy holds revs 32…71, of which 32…70 inserted: replace /l/0 made on rev 31 lands 39 places up.
        #expect(try Self.landing(copy, base: 31, latest: 100) == [.replace(JSONPointer(tokens: ["l", "39"]), .string("y"))])
        #expect(throws: PatchError.baseTooOld(base: 31, oldest: 60)) { try Self.landing(original, base: 31, latest: 100) }
        #expect(try Self.landing(original, base: 60, latest: 100) == [.replace(JSONPointer(tokens: ["l", "40"]), .string("y"))])
    }

    @Test("another user's client of the same id is another author: its edits are rebased over, the author's own are not")
    func authorsAreUserAndClient() throws {
        let history = Self.inserts(capacity: 10, count: 3)
        let sameIDOtherUser = try history.rebase(Self.replaceFirst, base: 0, latest: 3, author: Peer(user: "mallory", client: "a"), context: nil).ops
        #expect(sameIDOtherUser == [.replace(JSONPointer(tokens: ["l", "3"]), .string("y"))])
        #expect(try history.rebase(Self.replaceFirst, base: 0, latest: 3, author: Self.a, context: nil).ops == Self.replaceFirst)
    }
}
