/// TandemWireCore: the socket-free half of the wire — HTTP/1.1 messages and their parsers, RFC 6455 frames,
/// masking, the opening handshakes and the connection state machine, `ws://`/`wss://` URL rules, digests
/// and secure random bytes. Everything here is bytes in, values and events out: it builds for every
/// platform an app ships on, and TandemWire adds the event loop, sockets and TLS around it.
package enum TandemWireCore {}
