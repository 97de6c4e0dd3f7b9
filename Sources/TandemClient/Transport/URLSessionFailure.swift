import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TandemWireCore

/// What a URLSession failure means, shared by the WebSocket and HTTP transports on URLSession.
enum URLSessionFailure {
    /// The `URLError` behind `error`: FoundationNetworking reports some failures as an `NSError` of the URL
    /// domain rather than a `URLError`.
    static func urlError(_ error: any Error) -> URLError? {
        if let failure = error as? URLError { return failure }
        let bridged = error as NSError
        // `URLError.Code(rawValue:)` is failable in FoundationNetworking and not on Apple platforms: the cast
        // to an optional reads both.
        guard bridged.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: bridged.code) as URLError.Code? else { return nil }
        return URLError(code, userInfo: bridged.userInfo)
    }

    /// The TLS problem `failure` names, when it is one (a certificate not trusted, out of date or refused, a
    /// handshake that failed); retrying the same server fails the same way.
    static func tlsError(_ failure: URLError) -> TLSError? {
        let detail = failure.localizedDescription
        switch failure.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return .untrustedCertificate(reason: detail)
        case .serverCertificateHasBadDate, .serverCertificateNotYetValid: return .certificateExpired(reason: detail)
        case .clientCertificateRejected, .clientCertificateRequired: return .certificateRejected(reason: detail)
        case .secureConnectionFailed: return .handshakeFailed(reason: detail)
        case .unknown where detail.hasPrefix("SSL certificate problem"):
            // FoundationNetworking (libcurl) reports a refused certificate as an unknown error with curl's message.
            return detail.contains("expired") || detail.contains("not yet valid")
                ? .certificateExpired(reason: detail) : .untrustedCertificate(reason: detail)
        default: return nil
        }
    }
}
