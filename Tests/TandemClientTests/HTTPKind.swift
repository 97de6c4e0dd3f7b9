import TandemWire
@testable import TandemClient

/// The two ways the API clients send HTTP: TandemWire's loop (the default on Linux) and URLSession (the
/// default on Apple platforms, run here through FoundationNetworking). Tests of the API clients run on both.
enum HTTPKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case wire
    case urlSession

    var description: String { rawValue }

    /// A transport of this kind; the wire one runs on `group`.
    func transport(group: EventLoopGroup) -> any HTTPAPITransport {
        switch self {
        case .wire: WireHTTPTransport(group: group, tls: .client())
        case .urlSession: URLSessionHTTPTransport()
        }
    }
}
