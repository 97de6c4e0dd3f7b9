// libFuzzer target for Tandem's HTTP/1.1 layer (request parser, response head parser,
// WebSocket server handshake). Built by fuzz/run.sh together with the TandemWire sources it
// exercises.
//
// Input layout: byte 0 is a split point (per mille of the rest); the rest is the byte stream.
// Besides memory safety (AddressSanitizer) it checks invariants and traps on violation:
// - requests parsed from the stream do not depend on where it is split;
// - a parsed request serializes to bytes that parse back to the same request;
// - a handshake accepted by the server yields a 101 the client side validates.

@_cdecl("LLVMFuzzerTestOneInput")
public func httpFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let cut = stream.count * Int(data[0]) / 255

    let limits = HTTPRequestParser.Limits(maxHeaderBytes: 4096, maxBodyBytes: 4096)
    let whole = requests(from: [stream[...]], limits: limits)
    let split = requests(from: [stream[..<cut], stream[cut...]], limits: limits)
    precondition(whole.requests == split.requests && whole.error == split.error, "parse depends on split point")

    let server = WebSocketServerHandshake(supportedSubprotocols: ["tandem.v1"])
    for request in whole.requests {
        var bytes: [UInt8] = []
        request.serialize(into: &bytes)
        let again = requests(from: [bytes[...]], limits: HTTPRequestParser.Limits(maxHeaderBytes: 1 << 20, maxBodyBytes: 1 << 20))
        precondition(again.error == nil && again.requests == [request], "serialized request does not parse back")

        if let upgrade = try? server.evaluate(request) {
            let response = upgrade.response()
            var parser = HTTPResponseParser()
            parser.append(response.bytes)
            guard let head = try? parser.nextResponseHead() else { preconditionFailure("101 response does not parse") }
            precondition(head.headers["Sec-WebSocket-Accept"] == WebSocketHandshake.acceptValue(forKey: upgrade.key))
        }
    }

    var responseParser = HTTPResponseParser(maxHeaderBytes: 4096)
    responseParser.append(stream)
    if let head = try? responseParser.nextResponseHead() {
        precondition((100...999).contains(head.status), "status out of range")
        _ = responseParser.takeBufferedBytes()
    }
    return 0
}

private func requests(from pieces: [ArraySlice<UInt8>], limits: HTTPRequestParser.Limits) -> (requests: [HTTPRequest], error: HTTPParseError?) {
    var parser = HTTPRequestParser(limits: limits)
    var parsed: [HTTPRequest] = []
    do {
        for piece in pieces {
            parser.append(Array(piece))
            while let request = try parser.nextRequest() {
                parsed.append(request)
            }
        }
        return (parsed, nil)
    } catch {
        return (parsed, error)
    }
}
