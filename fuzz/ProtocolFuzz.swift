// libFuzzer target for Tandem's protocol layer (JSON parser and writer, messages, JSON Pointer, patches,
// the document and its limits). Built by fuzz/run.sh together with the TandemProtocol sources and
// Tests/TandemTestSupport/ProtocolInvariants.swift.
//
// Input layout: byte 0 picks the depth limit (bits 0–1: 32, the ceiling 59, 8, 1); the rest is a stream
// of client messages, one per line, applied to one room as the server applies them.
// Besides memory safety (AddressSanitizer) it checks, and traps on violation:
// - accepted ⇒ readable and equal: every accepted patch, presence and signal goes out in the messages that
//   carry it (patch event, snapshot and replay welcome, join, presence, signal), each parsed back with the
//   client's parser to an equal message; the document never nests past the limit;
// - the round trips of `ProtocolInvariants.checkRoundTrips` on the whole input.

@_cdecl("LLVMFuzzerTestOneInput")
public func protocolFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let depths = [PatchLimits.defaultMaxDepth, PatchLimits.deepestAllowed, 8, 1]
    let limits = PatchLimits(maxDepth: depths[Int(data[0] & 3)])
    let stream = UnsafeBufferPointer(start: data + 1, count: size - 1)
    ProtocolInvariants.checkAcceptedIsReadable(stream, limits: limits)
    ProtocolInvariants.checkRoundTrips(stream)
    return 0
}
