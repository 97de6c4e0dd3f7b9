// Only where the package links TandemWire (Package.swift's `wireTransportPlatforms`).
#if TANDEM_WIRE_TRANSPORT
import TandemSynchronization
import TandemWire

/// What a client on TandemWire needs besides the socket: an event loop and, for `wss://` / `https://`, a
/// TLS context. A borrowed group is the caller's; otherwise a one-thread group is started on first use and
/// stopped when these resources are released (from any thread: it does not wait). The TLS context is loaded
/// once, on first use.
final class WireClientResources: Sendable {
    private let tls: TLSConfiguration
    private let borrowed: EventLoopGroup?
    private let owned = Locked<(group: EventLoopGroup?, context: TLSContext?)>((nil, nil))

    init(group: EventLoopGroup?, tls: TLSConfiguration) {
        borrowed = group
        self.tls = tls
    }

    deinit {
        owned.withLock { $0.group }?.shutdownWithoutWaiting()
    }

    /// A loop to connect on.
    /// - Throws: the reason the client's own loop could not start (out of threads or descriptors).
    func loop() throws(IOError) -> EventLoop {
        if let borrowed { return borrowed.next() }
        let result = owned.withLock { owned -> Result<EventLoopGroup, IOError> in
            if let group = owned.group { return .success(group) }
            do {
                let group = try EventLoopGroup(threads: 1)
                owned.group = group
                return .success(group)
            } catch let error as IOError {
                return .failure(error)
            } catch {
                return .failure(.system(operation: "start the client's event loop", errno: 0))
            }
        }
        return try result.get().next()
    }

    /// The client context, loaded on first use.
    func tlsContext() throws(TLSError) -> TLSContext {
        let result = owned.withLock { owned -> Result<TLSContext, TLSError> in
            if let context = owned.context { return .success(context) }
            do throws(TLSError) {
                let context = try TLSContext(tls)
                owned.context = context
                return .success(context)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
#endif
