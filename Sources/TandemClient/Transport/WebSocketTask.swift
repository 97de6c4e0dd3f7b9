import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `URLSessionWebSocketTransport` needs of a `URLSessionWebSocketTask`, so that its logic — the upgrade
/// check, the receive loop, close codes, error mapping, cancellation — runs in tests against a scripted task;
/// only the conformance of `URLSessionWebSocketTask` below calls URLSession.
protocol WebSocketTask: AnyObject, Sendable {
    /// Largest message the task accepts, in bytes.
    var maximumMessageSize: Int { get set }
    /// Starts the opening handshake.
    func resume()
    /// Sends a ping; returns the failure, or nil once the pong arrived (the socket is open).
    func ping() async -> (any Error)?
    /// Sends a text message.
    func send(text: String) async throws
    /// The next message: `.text` or `.binary`; throws once the connection is gone.
    func receive() async throws -> WebSocketTaskMessage
    /// Starts the close handshake with `code` and `reason`.
    func close(code: Int, reason: Data)
    /// Drops the connection at once.
    func cancel()
    /// Why the task failed, once it did.
    var failure: (any Error)? { get }
    /// The peer's close code (nil: none was received) and reason.
    var closeFrame: (code: Int?, reason: Data?) { get }
}

/// One message a `WebSocketTask` received.
enum WebSocketTaskMessage: Sendable, Equatable {
    case text(String)
    case binary(Data)
}

// The only lines that call URLSession's WebSocket API: they compile on Linux (FoundationNetworking declares
// it) and run on Apple platforms. `@unchecked`: URLSessionWebSocketTask is thread-safe.
extension URLSessionWebSocketTask: WebSocketTask, @unchecked @retroactive Sendable {
    func ping() async -> (any Error)? {
        await withCheckedContinuation { continuation in sendPing { continuation.resume(returning: $0) } }
    }

    func send(text: String) async throws { try await send(.string(text)) }

    func receive() async throws -> WebSocketTaskMessage {
        switch try await receive() as URLSessionWebSocketTask.Message {
        case .string(let text): return .text(text)
        case .data(let data): return .binary(data)
        @unknown default: return .binary(Data())
        }
    }

    func close(code: Int, reason: Data) {
        cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: code) ?? .normalClosure, reason: reason)
    }

    var failure: (any Error)? { error }

    var closeFrame: (code: Int?, reason: Data?) { (closeCode == .invalid ? nil : closeCode.rawValue, closeReason) }
}
