// The byte-level protocol logic (frames, handshakes, HTTP messages) lives in TandemWireCore, which builds
// for every platform; every user of the sockets and loop here uses that logic too.
@_exported import TandemWireCore

/// TandemWire: HTTP/1.1 and WebSocket (RFC 6455) on the project's own event loop, sockets and OpenSSL
/// TLS, around TandemWireCore's socket-free protocol logic.
package enum TandemWire {}
