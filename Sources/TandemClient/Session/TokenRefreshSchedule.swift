import Foundation
import TandemProtocol

/// When a session asks its token provider for a fresh token while connected, and sends it in a `refresh`
/// message: the server closes a connection whose token expired (4010), so a session refreshes ahead of
/// `exp` and its connection lives on without a reconnect.
///
/// The expiry is read from the token without verifying it (only the server can); a token without a
/// readable `exp` is never refreshed ahead, and its connection falls back to the reconnect the close
/// code asks for.
enum TokenRefreshSchedule {
    /// The share of a token's remaining lifetime after which a fresh one is asked for.
    static let share = 0.5
    /// The shortest wait, seconds, so that a provider that keeps returning a token about to expire is not
    /// asked in a loop.
    static let minimumDelay = 0.25

    /// The `exp` a token states, or nil.
    static func expiry(of token: String) -> Int64? {
        try? JWT.unverifiedClaims(token).exp
    }

    /// Seconds from `now` (unix seconds) until a fresh token is asked for, for a token expiring at `exp`.
    static func delay(until exp: Int64, now: Double) -> Double {
        max(minimumDelay, (Double(exp) - now) * share)
    }

    /// Unix seconds now.
    static func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
