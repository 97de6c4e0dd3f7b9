import Foundation
import Testing
import TandemProtocol
@testable import TandemClient

/// The protocol scenarios the web client library's node tests run too (`Tests/Fixtures/client-protocol.json`):
/// rebase, rollback, exactly-once over a lost connection, a peer with the same client id, a viewer. Each
/// ends in `SyncEngine` as the file says, so the two clients cannot drift.
@Suite struct ClientProtocolVectorTests {
    @Test func everySharedScenarioEndsAsItSays() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/client-protocol.json")
        let root = try JSONValue.parse(String(contentsOf: file, encoding: .utf8))
        guard case .object(let base)? = root["welcome"], let scenarios = root["scenarios"]?.arrayValue else {
            Issue.record("the file has no welcome or scenarios")
            return
        }
        #expect(scenarios.count >= 8)
        for scenario in scenarios {
            let name = scenario["name"]?.stringValue ?? "?"
            var engine = SyncEngine(clientID: "c1")
            var sent: [JSONValue] = [], checked = 0, now: Int64 = 0
            for step in scenario["steps"]?.arrayValue ?? [] {
                let comment = Comment(rawValue: "\(name): \(step)")
                if case .object(var message)? = step["deliver"] {
                    if message["type"] == "welcome" {
                        message = base.merging(message) { $1 }.filter { !$0.value.isNull }
                    }
                    _ = engine.receive(try ServerMessage.decode(.object(message)), now: now)
                } else if let ops = step["change"] {
                    let refused: Bool
                    do {
                        refused = !(try engine.localChange(try PatchOp.list(from: ops)))
                    } catch {
                        refused = true
                    }
                    #expect(refused == (step["refused"]?.boolValue ?? false), comment)
                } else if step["lost"] != nil {
                    engine.connectionLost()
                } else if let expected = step["sent"]?.arrayValue {
                    #expect(Array(sent[checked...]) == expected, comment)
                    checked = sent.count
                } else if let visible = step["visible"] {
                    #expect(engine.visible.root == visible, comment)
                } else if let pending = step["pending"]?.doubleValue {
                    #expect(engine.pending.count == Int(pending), comment)
                }
                // What the engine sends now, as a connection would (a second apart: no pacing in the way).
                now += 1_000_000_000
                for case .patch(let seq, let ops, _) in engine.nextOutgoing(now: now) {
                    var encoded: [UInt8] = []
                    PatchOp.write(ops, into: &encoded)
                    sent.append(["seq": .number(Double(seq)), "ops": try JSONValue.parse(String(decoding: encoded, as: UTF8.self))])
                }
            }
        }
    }
}
