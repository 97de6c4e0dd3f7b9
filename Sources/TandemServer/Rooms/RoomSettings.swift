import TandemProtocol

/// What a room needs from the server configuration.
struct RoomSettings: Sendable {
    var core = RoomCore.Settings()
    var presenceGrace: Duration = .seconds(5)
    var maxParticipants = 100
    var heartbeat = HeartbeatSettings()
    var limits = SessionLimits()

    init() {}

    init(_ configuration: ServerConfiguration) {
        core = RoomCore.Settings(
            limits: PatchLimits(maxOps: configuration.maxOpsPerPatch, maxDocument: configuration.maxDocumentBytes,
                                maxDepth: configuration.maxDepth),
            historyWindow: Int64(configuration.historyWindow))
        presenceGrace = .milliseconds(configuration.presenceGraceMilliseconds)
        maxParticipants = configuration.maxParticipantsPerRoom
        heartbeat = HeartbeatSettings(interval: configuration.heartbeatIntervalMilliseconds, timeout: configuration.idleTimeoutMilliseconds)
        limits = SessionLimits(
            rate: Double(configuration.rateLimit), burst: configuration.rateBurst, maxMessage: configuration.maxMessageBytes,
            maxOps: configuration.maxOpsPerPatch, maxDocument: configuration.maxDocumentBytes,
            maxDepth: configuration.maxDepth)
    }
}
