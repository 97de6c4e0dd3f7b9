// Only where the package links TandemWire (Package.swift's `wireTransportPlatforms`).
#if TANDEM_WIRE_TRANSPORT
import TandemWire

/// The transport on TandemWire's event loops: `ws://`, and `wss://` through OpenSSL (Linux). The default
/// transport of a `SyncSession`.
///
/// Without a `group`, it starts its own one-thread event loop on the first connection (a client needs no
/// more) and stops it when the transport is released, so an app never creates or shuts down a group.
/// Its TLS context is loaded once, on the first `wss://` connection.
public final class WireTransport: SyncTransport {
    private let resources: WireClientResources

    /// A transport on `group` (owned by the caller), or on a loop of its own when nil. `wss://` servers are
    /// verified against `tls` (by default the system's trust store; add the CA of a private deployment).
    public init(group: EventLoopGroup? = nil, tls: TLSConfiguration = .client()) {
        resources = WireClientResources(group: group, tls: tls)
    }

    /// Connects with `WebSocketClient`, mapping its errors to `SyncTransportError`.
    public func connect(_ request: SyncTransportRequest) async throws(SyncTransportError) -> any SyncTransportConnection {
        let loop: EventLoop
        let context: TLSContext?
        do throws(IOError) {
            loop = try resources.loop()
        } catch {
            throw .unreachable("cannot start the client's event loop: \(error)")
        }
        do throws(TLSError) {
            context = request.url.lowercased().hasPrefix("wss://") ? try resources.tlsContext() : nil
        } catch {
            throw .tls(error)
        }
        do {
            let client = try await WebSocketClient.connect(
                url: request.url, subprotocols: request.subprotocols, headers: request.headers.map { ($0.name, $0.value) },
                timeout: request.timeout, maxMessageSize: request.maxMessageSize, tls: context, on: loop)
            return WireTransportConnection(client: client)
        } catch {
            throw Self.transportError(error)
        }
    }

    static func transportError(_ error: WebSocketClientError) -> SyncTransportError {
        switch error {
        case .invalidURL(let message): .invalidURL(message)
        case .connectFailed(let message): .unreachable(message)
        case .timeout: .timeout
        case .handshakeFailed(let message): .handshakeFailed(message)
        case .closed: .closed
        case .tls(let failure): .tls(failure)
        }
    }
}

/// A `WebSocketClient` as a transport connection.
struct WireTransportConnection: SyncTransportConnection {
    let client: WebSocketClient

    var events: AsyncStream<WebSocketClientEvent> { client.events }

    func send(text: [UInt8]) async throws(SyncTransportError) {
        do {
            try await client.send(text: text)
        } catch {
            throw WireTransport.transportError(error)
        }
    }

    func close(code: UInt16, reason: String) async {
        await client.close(code: code, reason: reason)
    }

    func abort() {
        client.abort()
    }
}
#endif
