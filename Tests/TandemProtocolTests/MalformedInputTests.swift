import Foundation
import Testing
import TandemProtocol
import TandemTestSupport

/// Hostile-input robustness: random corruptions of valid messages must be refused with a typed
/// error or decoded into something that round-trips — never crash or hang (the fuzzing
/// invariants, run on a fixed random sample).
@Suite struct MalformedInputTests {
    static let seeds: [[UInt8]] = [
        Array(#"{"type":"patch","seq":1842,"ops":[{"op":"set","path":"/contentOffset","value":{"x":0,"y":1287.5}},{"op":"remove","path":"/marks/coupon"}]}"#.utf8),
        Array(#"{"type":"hello","token":"a.b.c","client":"c1","resume":{"epoch":"e","rev":3},"presence":{"name":"Zoë \ud83d\ude00"}}"#.utf8),
        Array(#"{"type":"signal","event":"e","data":[1,-2.5e3,true,null,"\"esc\"\n"]}"#.utf8),
    ]

    @Test func corruptedMessagesFailCleanlyOrRoundTrip() {
        var generator = SplitMix64(seed: 2026)
        var refused = 0
        for round in 0..<3_000 {
            var bytes = Self.seeds[round % Self.seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(Array("{}[]\",:\\0-eE.u".utf8).randomElement(using: &generator)!, at: position)
                default: bytes = Array(bytes.prefix(position))
                }
                if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
            }
            bytes.withUnsafeBufferPointer(ProtocolInvariants.checkRoundTrips)
            do {
                _ = try JSONValue.parse(bytes)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                refused += 1
            }
        }
        #expect(refused > 1_000)
    }
}

/// The protocol fuzzer's seed inputs, replayed through its invariants on every test run.
@Suite struct ProtocolFuzzCorpusTests {
    @Test func theSeedCorpusHoldsTheInvariants() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fuzz/corpus/protocol")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 6)
        for name in names {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            let depths = [PatchLimits.defaultMaxDepth, PatchLimits.deepestAllowed, 8, 1]
            bytes.dropFirst().withContiguousStorageIfAvailable { stream in
                ProtocolInvariants.checkAcceptedIsReadable(stream, limits: PatchLimits(maxDepth: depths[Int(bytes[0] & 3)]))
                ProtocolInvariants.checkRoundTrips(stream)
            }
        }
    }
}
