import TandemRedis

/// The Lua scripts of the cluster's room sequencer. Each runs atomically inside Redis, so every node
/// sees one total order per room without any coordination of its own.
/// Their code is in `Scripts/Lua` (`room-*.lua`); this type documents how each is called.
///
/// Keys of room R (the hash tag keeps them in one Redis Cluster slot, `RoomKeys`): `P:{R}:meta` (hash:
/// epoch, rev, run: the Redis run id of the last write, per author (a user's client id) its progress field
/// (`RoomKeys.progressField(author:)`: `a:`, the user as `length:bytes`, the client id) → "lastSeq:lastRev:time"
/// (unix ms of the call that applied it; "lastSeq:lastRev" from earlier releases and re-seeded rooms) for
/// exactly-once (`c:<client id>` fields of earlier releases, whose user is not known, are dropped by
/// the next sweep and read as forgotten progress), so that one read and one write of one hash serve a batch, and, kept bounded by
/// `storeSnapshot`, `forgot` (set once a client's progress was dropped) and `swept` (the time of the
/// last sweep)), `P:{R}:log` (stream; one entry per appended
/// batch, id "firstRev-0" ("lastRev-0", with fields first and time, in logs of earlier releases: every reader takes both), field m: see `append`; entries of one patch each, id "rev-0",
/// fields epoch, user, client, seq, ops, time, are read too, so a log holding them stays readable), `P:{R}:snapshot` (hash: epoch, rev, state: the newest),
/// `P:{R}:snapshots` (hash: rev → state, the snapshots the retained history is rebuilt from) and
/// `P:{R}:deleted` (string: the epoch of the room a backend deleted, for a day, so that nodes close
/// its connections as deleted and do not bring it back).
enum RoomSequencerScripts {
    /// Makes sure the room exists and returns `{epoch, rev, origin}` (origin as `ensure` says). A room
    /// whose meta key is gone (first use, or a Redis restart without persistence) starts over with the
    /// candidate epoch and without any leftover log or snapshot.
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence ("1" or "0"),
    /// the Redis run id (empty: the script reads it).
    static let open = RedisScript(lua: PackageResources.room_prelude_lua, PackageResources.room_open_lua)

    /// Sequences the batches of one or more rooms (a node's group commit: one call per Redis round trip
    /// for every room with patches ready, whatever the number of patches). For each room, in order, and
    /// for each patch of its batch: exactly-once by client seq, compare-with-base-rev, the node's
    /// verdict, rev + 1. The script does not judge a patch's ops: every verdict on them is the node's
    /// (`RedisRoomSequencer`), made by the same Swift rules a single server applies. The patches a room's batch appended go to its log as ONE
    /// entry, and the same bytes go on the room's change channel, so followers need not read the log:
    /// the per-patch work left in Lua is the exactly-once check.
    ///
    /// The node built each batch expecting each patch to be `applied`, or `rejected` where it passed
    /// its own rejection reason. At the first patch that ends otherwise (`duplicate`, `behind`, a
    /// seq out of range), the room's patches after it are not looked at (`skipped`): they were
    /// checked against a state that does not exist, and the node submits them again.
    ///
    /// Returns, per room, the length of its reply and the reply: `{epoch, created, status, rev, reason,
    /// seq, status, rev, …}` (one group per patch), with status `applied`, `duplicate` (rev is the
    /// original one), `behind` (rev is the current one), `rejected` (reason says why; nothing changed)
    /// or `skipped`; or `{'', 0, 'lost'}` when the room's meta is gone (nothing is created here, so a
    /// node can re-seed the room first). Seq 0 asks the script to give the patch the client's next seq
    /// (writes without a connection, which nothing resends: the HTTP API's); `seq` in the reply is the
    /// one used.
    ///
    /// A log entry's id is the first rev it holds (readers take entries keyed by their last rev too, as
    /// logs written by earlier releases hold them: `RedisRoomSequencer.logRead`), so that an `XADD`
    /// with an explicit id refuses a writer whose view of the room is stale (CLUSTER.md, "What is
    /// next"); its one field is `m`, the change message (`RoomChangeMessage`, kind `B`), whose header
    /// holds the epoch, the first rev and the time (entries of earlier releases also have `first` and
    /// `time` fields). The log keeps at least `window` revs: the entries before the
    /// one holding the window's first rev go (`XTRIM MINID`), every 64 revs from a window of 1,000 on,
    /// at every append below it.
    ///
    /// **The short form.** A room the node expects to append whole (every patch valid, seqs ≥ 1 rising
    /// per client, the room at the epoch and rev of the node's head) comes in a form the node built all
    /// it could of: the change message, the new revs and progress values as they are if the room is at
    /// the expected rev. The script then only reads the `meta` fields, compares, and writes, with no
    /// work per patch: `{from}` means every patch was appended, from rev `from` on. When the room moved
    /// on (another node's patches) and the batch applies to any state, the script shifts the revs, the
    /// progress values and the message's header by what it moved. It answers `{-1, rev}` when the batch
    /// must be appended at the expected rev and the room is at `rev` (every patch `behind`), and `{0}`
    /// when anything else differs (epoch, run id, a client's stored seq at or past its first one, a
    /// missing room): nothing was written, and the node sends the room again in the long form.
    ///
    /// KEYS: per room, its meta and log keys; on a Redis Cluster, which refuses a script declaring keys
    /// of several slots, those of the first room only, the others' passed as arguments (see the end of
    /// ARGV), all on the shard that runs the call: the script touches them before it writes anything,
    /// so a call reaching a shard that does not hold one of them fails whole and writes nothing. ARGV: epoch candidate, trusted persistence ("1" or
    /// "0"), window, the time (unix ms); then per room, in the long form: its number of patches,
    /// base rev (-1: any), then four values per patch: the author's progress field, seq, the node's rejection reason (empty when the node
    /// found the patch valid) and its record (`RoomChangeMessage`: user, client, seq, ops); or in the
    /// short form: `F`, the expected epoch, the expected rev, "1" when the batch may only be appended at
    /// that rev, the number of clients `n`, the change message as if appended at the expected rev, the
    /// length of its header (kind, epoch, first rev, time), its last rev and first rev and the trim
    /// bound (empty: none) as if appended there, the `n` authors' progress fields, then per author the
    /// prefix its stored progress has when its first seq in the batch follows the last one ("seq − 1:")
    /// and its progress after the batch as if appended at the expected rev ("seq:rev:time"); then the
    /// meta and log keys of the rooms KEYS does not hold, in order, and their number; last, the Redis
    /// run id (empty: the script reads it).
    static let append = RedisScript(lua: PackageResources.room_prelude_lua, PackageResources.room_append_lua)

    /// Brings back a room Redis lost, from a node's copy: only when the room's meta is gone, creates it
    /// in a new epoch at rev 0 with the copy as its snapshot and the clients' progress (each at rev 0).
    /// Returns 1 when it seeded, 0 when the room exists (someone was first, or nothing was lost), 2 when
    /// the node's copy is of a room a backend deleted (it must not come back). When the copy's room
    /// had dropped some client's progress, the new one says so too (`forgot`).
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence,
    /// state, the epoch of the node's copy, "1" when the copy's room forgot clients, then pairs of an
    /// author's progress field and its last seq.
    static let seed = RedisScript(lua: PackageResources.room_prelude_lua, PackageResources.room_seed_lua)

    /// Deletes a room (a backend's `DELETE`): its meta, progress, log and snapshots, leaving a marker of
    /// its epoch for ARGV[1] seconds so that the nodes serving it close its connections as deleted and
    /// none brings it back from memory. Returns 1, or 0 when there was no room.
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: how long the marker stays (seconds).
    static let delete = RedisScript(lua: PackageResources.room_prelude_lua, PackageResources.room_delete_lua)

    /// Stores a document snapshot if it is for the room's current epoch and newer than the stored one,
    /// also among the snapshots the history is rebuilt from, dropping those older than ARGV[4]. With a
    /// cutoff time (ARGV[5] ≥ 0) it also drops the log's entries written before it, never one at or after
    /// the keep-from rev ARGV[6] (the resume window) and never past an entry without a time, cut back to
    /// the newest snapshot at the end of an entry before that point (so every retained rev still
    /// rebuilds; the engine stores snapshots at the end of a batch), then the snapshots
    /// older than it. The walk is bounded per call; what is left goes at the next snapshot.
    ///
    /// It also keeps the clients' progress bounded, as one node's room does: when the room holds more
    /// than `cap` of them (and a sixteenth, so that this runs in batches), or a sweep is due (at most
    /// hourly, or every `ttl` when shorter), it drops the progress of clients not heard from for `ttl`,
    /// then of the least recently applied beyond `cap`, and sets `forgot` when it dropped any. Progress
    /// without a time (earlier releases, re-seeded rooms) gets the sweep's time. Returns 1 when stored,
    /// 0 when not.
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: epoch, rev, state, oldest snapshot rev
    /// to keep, cutoff time (unix ms, -1: none), keep-from rev, now (unix ms), cap, ttl (ms).
    static let storeSnapshot = RedisScript(lua: PackageResources.room_store_snapshot_lua)

    /// Shared by every script but `storeSnapshot`. `ensure` (with the six keys of one room) and
    /// `rotate` (an existing room, its `meta` read as epoch, rev, run) give the room's epoch and rev, and
    /// 0 (as it was), 1 (created: its meta was gone) or 2 (epoch rotated: Redis restarted since the room's
    /// last write and its persistence is not trusted to have kept every acknowledged write, so the
    /// history may have rewound; the log and rev are kept, but clients must take a snapshot). The
    /// trusted flag is "1" when the operator declared Redis's persistence complete (appendfsync always).
    /// `known` is the run id of the Redis process as the node's connection learned it when it opened (a
    /// connection never outlives its process): reading it with `INFO server` costs more than the rest
    /// of a small append.
    ///
    /// Every change that breaks a follower's continuity is also told on the room's change channel
    /// (`P:{R}:changes`, the meta key's name with `changes` for `meta`, so it hashes to the room's slot):
    /// `E` and the new epoch (empty: the room is gone), see `RoomChangeMessage`.
    static let prelude = String(decoding: PackageResources.room_prelude_lua, as: UTF8.self)
}
