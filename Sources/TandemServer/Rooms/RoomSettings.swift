import Foundation
import TandemProtocol

/// What a room needs from the server configuration.
package struct RoomSettings: Sendable {
    package var core: RoomCore.Settings
    var presenceGrace: Duration
    var maxParticipants: Int
    /// Most connections (client ids) one user may have in one room on this node.
    var maxConnectionsPerUser: Int
    var heartbeat: HeartbeatSettings
    var limits: SessionLimits
    /// Unix milliseconds: when a room hears from a client (exactly-once memory expires by it).
    package var wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) }
    /// Monotonic time: how long a patch took from arrival to release (the commit-latency metric).
    package var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }

    init(_ configuration: ServerConfiguration) {
        core = RoomCore.Settings(
            limits: PatchLimits(maxOps: configuration.maxOpsPerPatch, maxDocument: configuration.maxDocumentBytes,
                                maxDepth: configuration.maxDepth),
            historyWindow: Int64(configuration.historyWindow),
            retainedRevisions: Int64(configuration.retainedRevisions),
            retainedMilliseconds: configuration.retainedAge.map(\.totalMilliseconds),
            snapshotInterval: Int64(max(1, configuration.snapshotInterval)),
            progressTTL: configuration.clientProgressTTL.totalMilliseconds,
            maxTrackedClients: configuration.maxTrackedClientsPerRoom)
        presenceGrace = configuration.presenceGrace
        maxParticipants = configuration.maxParticipantsPerRoom
        maxConnectionsPerUser = configuration.maxConnectionsPerUser
        heartbeat = HeartbeatSettings(interval: Int(configuration.heartbeatInterval.totalMilliseconds), timeout: Int(configuration.idleTimeout.totalMilliseconds))
        limits = SessionLimits(
            rate: Double(configuration.rateLimit), burst: configuration.rateBurst, maxMessage: configuration.maxMessageBytes,
            maxOps: configuration.maxOpsPerPatch, maxDocument: configuration.maxDocumentBytes,
            maxDepth: configuration.maxDepth)
    }
}
