import Foundation
import TandemWire

/// Runs blocking work (a process start, a wait for its exit) on a thread of its own, never on the cooperative
/// pool, whose few threads the rest of a parallel test run needs.
public func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

extension WebSocketServer {
    /// Shuts the server down on a thread of its own: `shutdown` blocks until its loops let go.
    public func shutdownOffThePool(timeout: Duration = .seconds(1)) async {
        _ = try? await offload { self.shutdown(timeout: timeout) }
    }
}
