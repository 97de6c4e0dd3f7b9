/// The invariants a fuzzer checks on arbitrary bytes. A libFuzzer driver only has to call
/// `check` from `LLVMFuzzerTestOneInput`; any violated invariant stops the process with a
/// message, which libFuzzer records as a crash with the input that caused it.
///
/// Invariants: parsing never crashes; whatever parses re-serializes to bytes that parse back
/// to the same value and serialize identically, with `serializedByteCount` exact; decoded
/// messages re-encode to the same message; a patch either applies with an exact size or
/// leaves the document untouched; token verification and pointer parsing never crash.
public enum FuzzInvariants {
    /// Runs every check on `bytes`.
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let value = try? JSONValue.parse(UnsafeRawBufferPointer(bytes)) {
            let out = value.serializedBytes()
            precondition(out.count == value.serializedByteCount, "serializedByteCount disagrees with the output")
            guard let again = try? JSONValue.parse(out) else { preconditionFailure("serializer output does not parse") }
            precondition(again == value, "value changed in a serialize/parse round trip")
            precondition(again.serializedBytes() == out, "serialization is not deterministic")
        }
        if let message = try? ClientMessage.decode(bytes) {
            precondition((try? ClientMessage.decode(message.encoded())) == message, "client message did not round-trip")
            if case .patch(_, let ops) = message {
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
}
