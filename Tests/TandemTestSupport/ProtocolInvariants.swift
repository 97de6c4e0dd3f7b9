// Compiled into the package's test support and, with the TandemProtocol sources, straight into the
// protocol fuzzer (fuzz/run.sh), where there is no TandemProtocol module to import.
#if canImport(TandemProtocol)
import TandemProtocol
#endif

/// The invariants of the protocol layer, checked on arbitrary bytes by the fuzzer (`fuzz/ProtocolFuzz.swift`)
/// and by tests on fixed samples. A violation stops the process with a message, which libFuzzer records as a
/// crash together with the input.
public enum ProtocolInvariants {
    /// Parsing never crashes; whatever parses re-serializes to bytes that parse back to the same value and
    /// serialize identically, with `serializedByteCount` exact; decoded messages re-encode to the same
    /// message; a patch either applies with an exact size or leaves the document untouched; token
    /// verification and pointer parsing never crash.
    public static func checkRoundTrips(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let value = try? JSONValue.parse(UnsafeRawBufferPointer(bytes)) {
            let out = value.serializedBytes()
            precondition(out.count == value.serializedByteCount, "serializedByteCount disagrees with the output")
            guard let again = try? JSONValue.parse(out) else { preconditionFailure("serializer output does not parse") }
            precondition(again == value, "value changed in a serialize/parse round trip")
            precondition(again.serializedBytes() == out, "serialization is not deterministic")
        }
        if let message = try? ClientMessage.decode(bytes) {
            precondition((try? ClientMessage.decode(message.encoded())) == message, "client message did not round-trip")
            if case .patch(_, let ops, _) = message {
                var document = Document()
                let before = document
                do {
                    try document.apply(ops)
                } catch {
                    precondition(document == before, "a refused patch changed the document")
                }
                precondition(document.byteCount == document.root.serializedBytes().count, "document size tracking is off")
            }
        }
        if let message = try? ServerMessage.decode(bytes) {
            precondition((try? ServerMessage.decode(message.encoded())) == message, "server message did not round-trip")
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            _ = try? JWT.verify(text, now: 0, signer: { Array($0.prefix(32)) })
            if let pointer = try? JSONPointer(parsing: text) {
                precondition((try? JSONPointer(parsing: pointer.description)) == pointer, "pointer did not round-trip")
            }
        }
    }

    /// Accepted ⇒ readable and equal. `bytes` is a stream of client messages, one per line (at most 16), applied
    /// as a server applies them to one room under `limits`: every patch the document takes, every presence and
    /// signal the depth rule lets through, becomes the messages that carry it to the others (the patch event, a
    /// snapshot and a replay `welcome`, `join`, `presence`, `signal`), and each of those is parsed back with the
    /// client's parser to a message equal to the one sent. The document never nests past the limit.
    public static func checkAcceptedIsReadable(_ bytes: UnsafeBufferPointer<UInt8>, limits: PatchLimits) {
        var document = Document()
        var rev: Int64 = 0
        let you = SessionIdentity(user: "u", client: "c", role: .host)
        let peer = Peer(user: "u", client: "c")
        for line in bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 15, omittingEmptySubsequences: true) {
            guard let message = try? ClientMessage.decode(line) else { continue }
            var outgoing: [ServerMessage] = []
            var presence: JSONValue?
            switch message {
            case .patch(let seq, let ops, _):
                guard (try? document.apply(ops, limits: limits)) != nil else { continue }
                precondition(document.root.depth(exceeding: limits.maxDepth) != nil, "an accepted patch nested the document past the limit")
                rev += 1
                let event = PatchEvent(rev: rev, user: "u", client: "c", seq: seq, ops: ops)
                outgoing = [
                    .patch(event),
                    .welcome(Welcome(epoch: "e", rev: rev, sync: .state(document.root), lastSeq: seq, you: you, participants: [])),
                    .welcome(Welcome(epoch: "e", rev: rev, sync: .replay([event]), lastSeq: seq, you: you, participants: [])),
                ]
            case .presence(let data): presence = data
            case .hello(let hello): presence = hello.presence
            case .signal(let event, let data):
                guard limits.excessDepth(of: data) == nil else { continue }
                outgoing = [.signal(from: peer, event: event, data: data)]
            case .ping, .refresh:
                continue
            }
            if let data = presence {
                guard limits.excessDepth(of: data) == nil else { continue }
                let participant = Participant(user: "u", client: "c", role: .guest, data: data)
                outgoing = [
                    .presence(peer, data: data), .join(participant),
                    .welcome(Welcome(epoch: "e", rev: rev, sync: .state(document.root), lastSeq: 0, you: you, participants: [participant])),
                ]
            }
            for sent in outgoing {
                let encoded = sent.encoded()
                let read: ServerMessage
                do {
                    read = try ServerMessage.decode(encoded)
                } catch {
                    preconditionFailure("an accepted change went out as a \(sent.type) the client cannot read: \(error)")
                }
                precondition(read == sent, "a \(sent.type) read back differs from what was sent")
            }
        }
    }
}
