import TandemSynchronization

/// Slows down guessing of invitation codes: failed accepts (unknown or dead codes) are counted per client
/// network (`SocketAddress.clientNetwork`: an IPv4 address, an IPv6 /64) and in total over a sliding window.
/// Past its own limit a network is refused until the window has moved on. Past the global limit, every
/// network that failed within the window is refused too, but a network with no failure still gets its
/// try: an honest guest with a valid code is never locked out by others' guessing, while a guesser needs a
/// new network for each guess.
///
/// Thread-safe (one mutex); time (unix seconds) is passed in. Memory is bounded: addresses whose failures
/// all left the window are dropped, and at most `maxTrackedAddresses` are kept (beyond that the global limit
/// is what protects the code space).
final class AcceptThrottle: Sendable {
    /// The limits.
    struct Limits: Sendable, Equatable {
        /// Failed accepts one client network may make within `window`.
        var perAddress = 10
        /// Failed accepts all networks together may make within `window` before networks that failed are all refused.
        var global = 100
        /// The window, seconds.
        var window: Int64 = 60
        /// Most addresses remembered at once.
        var maxTrackedAddresses = 100_000
    }

    private struct State {
        var byAddress: [String: [Int64]] = [:]
        var global: [Int64] = []
    }

    let limits: Limits
    private let state = Locked(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// The seconds `address` must wait before its next accept (for `Retry-After`), or nil when it may try now.
    func retryAfter(address: String, now: Int64) -> Int64? {
        state.withLock { state in
            let cutoff = now - limits.window
            state.global.removeAll { $0 <= cutoff }
            var waits: [Int64] = []
            if var failures = state.byAddress[address] {
                failures.removeAll { $0 <= cutoff }
                state.byAddress[address] = failures.isEmpty ? nil : failures
                if failures.count >= limits.perAddress, let oldest = failures.first {
                    waits.append(oldest + limits.window - now)
                }
                if !failures.isEmpty, state.global.count >= limits.global, let oldest = state.global.first {
                    waits.append(oldest + limits.window - now)
                }
            }
            return waits.max().map { max($0, 1) }
        }
    }

    /// How many addresses are remembered (bounded by `limits.maxTrackedAddresses`).
    var trackedAddressCount: Int { state.withLock { $0.byAddress.count } }

    /// Counts a failed accept from `address`.
    func recordFailure(address: String, now: Int64) {
        state.withLock { state in
            let cutoff = now - limits.window
            state.global.append(now)
            if state.global.count > limits.global { state.global.removeFirst(state.global.count - limits.global) }
            var failures = (state.byAddress[address] ?? []).filter { $0 > cutoff }
            failures.append(now)
            if failures.count > limits.perAddress { failures.removeFirst(failures.count - limits.perAddress) }
            state.byAddress[address] = failures
            if state.byAddress.count > limits.maxTrackedAddresses {
                state.byAddress = state.byAddress.filter { $0.value.last.map { $0 > cutoff } ?? false }
                while state.byAddress.count > limits.maxTrackedAddresses, let key = state.byAddress.keys.first {
                    state.byAddress[key] = nil
                }
            }
        }
    }
}
