import TandemRedis

/// Every Lua script the cluster runs in Redis, as Redis runs it. The code lives in `Scripts/Lua`, built
/// into the binary (`embedInCode`); a script is one file after the prelude whose functions it calls. Each
/// script's owner documents its keys, arguments and reply: `RoomSequencerScripts`, `RedisPresence`,
/// `RedisWebhookLog`.
enum ClusterScripts {
    /// Every script with a name for messages (its file), for the checks of its language (`luac -p`,
    /// luacheck), which read the composed source so that a prelude's function a script misses is found.
    static var all: [(name: String, script: RedisScript)] {
        [
            ("room-open", RoomSequencerScripts.open),
            ("room-append", RoomSequencerScripts.append),
            ("room-seed", RoomSequencerScripts.seed),
            ("room-delete", RoomSequencerScripts.delete),
            ("room-store-snapshot", RoomSequencerScripts.storeSnapshot),
            ("presence-refresh", RedisPresence.refreshScript),
            ("presence-live", RedisPresence.liveScript),
            ("webhook-report", RedisWebhookLog.reportScript),
            ("webhook-tick", RedisWebhookLog.tickScript),
            ("webhook-heartbeat", RedisWebhookLog.heartbeatScript),
            ("webhook-forget", RedisWebhookLog.forgetScript),
            ("webhook-release", RedisWebhookLog.releaseScript),
        ]
    }
}

extension RedisScript {
    /// A script from Lua files, joined in order (a prelude, then the script that calls its functions).
    init(lua files: [UInt8]...) {
        self.init(files.map { String(decoding: $0, as: UTF8.self) }.joined())
    }
}
