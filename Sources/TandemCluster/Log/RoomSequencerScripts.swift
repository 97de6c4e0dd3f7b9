import TandemRedis

/// The Lua scripts of the cluster's room sequencer. Each runs atomically inside Redis, so every node
/// sees one total order per room without any coordination of its own.
///
/// Keys of room R (the hash tag keeps them in one Redis Cluster slot): `P:{R}:meta` (hash: epoch, rev, run: the Redis run id of the last write),
/// `P:{R}:clients` (hash: client id → "lastSeq:lastRev"), `P:{R}:log` (stream; entry id "rev-0",
/// fields epoch, user, client, seq, ops, time), `P:{R}:snapshot` (hash: epoch, rev, state: the newest),
/// `P:{R}:snapshots` (hash: rev → state, the snapshots the retained history is rebuilt from) and
/// `P:{R}:deleted` (string: the epoch of the room a backend deleted, for a day, so that nodes close
/// its connections as deleted and do not bring it back).
enum RoomSequencerScripts {
    /// Makes sure the room exists and returns `{epoch, rev, origin}` (origin as `ensure` says). A room
    /// whose meta key is gone (first use, or a Redis restart without persistence) starts over with the
    /// candidate epoch and without any leftover clients, log or snapshot.
    /// KEYS: meta, clients, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence ("1" or "0"),
    /// the Redis run id (empty: the script reads it).
    static let open = RedisScript(prelude + """
    local epoch, rev, created = ensure(ARGV[1], ARGV[2], ARGV[3])
    if created ~= 0 then notify(epoch) end
    return {epoch, rev, created}
    """)

    /// Sequences a batch of patches of one room in order (a node's group commit: one call per Redis round
    /// trip, whatever the number of patches): for each, exactly-once by client seq, compare-with-base-rev,
    /// the node's own verdict, structural validation, append to the capped log, rev + 1. Then one message
    /// on the room's change channel carries every appended entry, so followers need not read the log.
    ///
    /// The node built the batch expecting each patch to be `applied`, or `rejected` where it passed its
    /// own rejection reason. At the first patch that ends otherwise (`duplicate`, `behind`, a structural
    /// `rejected`), the patches after it are not looked at (`skipped`): they were checked against a state
    /// that does not exist, and the node submits them again.
    ///
    /// Returns `{epoch, created, status, rev, reason, seq, status, rev, …}` (one group per patch), with
    /// status `applied`, `duplicate` (rev is the original one), `behind` (rev is the current one),
    /// `rejected` (reason says why; nothing changed) or `skipped`; or `{'', 0, 'lost'}` when the room's
    /// meta is gone (nothing is created here, so a node can re-seed the room first). Seq 0 asks the
    /// script to give the patch the client's next seq (writes without a connection, which nothing
    /// resends: the HTTP API's); `seq` in the reply is the one used.
    ///
    /// The log is trimmed to its length exactly below 1,000 entries, approximately above (`MAXLEN ~`: whole
    /// stream nodes go, so the log holds up to one node, 100 entries by default, more; an exact trim on
    /// every append costs more than the rest of the append).
    /// KEYS: meta, clients, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence
    /// ("1" or "0"), base rev (-1: any), max ops, max patch bytes, log length, the time (unix ms), "1" when
    /// the node parsed and validated every entry's ops (the script then checks their size only), then five
    /// values per patch: client, user, seq, ops (JSON array), the node's own rejection reason (empty when
    /// the node found the patch valid); last, the Redis run id (empty: the script reads it).
    static let append = RedisScript(prelude + appendBody)

    /// `append` for several rooms in one call (a node's group commit across rooms: one call per Redis
    /// round trip for every room with patches ready): each room exactly as `append` would, in order.
    /// Returns, per room, the length of its `append` reply and that reply. Standalone Redis only: on a
    /// sharded Redis, a call may only touch rooms of one shard (and needs `allow-cross-slot-keys`).
    /// KEYS: the six keys of each room, room after room. ARGV: per room, the number of its `append`
    /// arguments (without the run id) and those arguments; last, the Redis run id (empty: read it).
    static let appendRooms = RedisScript("local function sequence(KEYS, ARGV)\n" + prelude + appendBody + "\n" + """
    end
    local replies, k, a, run = {}, 0, 1, ARGV[#ARGV]
    while a < #ARGV do
      local count = tonumber(ARGV[a])
      local args = {}
      for i = 1, count do args[i] = ARGV[a + i] end
      args[count + 1] = run
      local reply = sequence({KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5], KEYS[k + 6]}, args)
      table.insert(replies, #reply)
      for _, value in ipairs(reply) do table.insert(replies, value) end
      k, a = k + 6, a + count + 1
    end
    return replies
    """)

    /// The body of `append` (after the prelude), shared by `appendRooms`.
    private static let appendBody = """
    local meta = redis.call('HMGET', KEYS[1], 'epoch', 'rev', 'run')
    if not meta[1] then return {'', 0, 'lost'} end
    local epoch, rev, created = ensure(ARGV[1], ARGV[2], ARGV[#ARGV], meta)
    local base, maxOps, maxBytes, window, time = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7]
    local checked, trim = ARGV[8] == "1", tonumber(window) >= 1000 and "~" or "="
    -- Protocol v1 ops: set, add, replace and test carry a value, remove a path alone, move and copy a from.
    local valued = {set = true, add = true, replace = true, test = true}
    local appended = 0
    -- Each client's "lastSeq:lastRev", read in one call for the batch and written in one at its end.
    local progress, names, dirty, written = {}, {}, {}, {}
    for i = 9, #ARGV - 5, 5 do
      if progress[ARGV[i]] == nil then progress[ARGV[i]] = false; table.insert(names, ARGV[i]) end
    end
    if #names > 0 then
      local stored = redis.call('HMGET', KEYS[2], unpack(names))
      for i, name in ipairs(names) do progress[name] = stored[i] end
    end
    local function appendEntry(client, user, seq, ops)
      rev = rev + 1
      appended = appended + 1
      local at, used = int(rev), int(seq)
      redis.call('XADD', KEYS[3], 'MAXLEN', trim, window, at .. '-0', 'epoch', epoch, 'user', user, 'client', client, 'seq', used, 'ops', ops, 'time', time)
      if not dirty[client] then dirty[client] = true; table.insert(written, client) end
      progress[client] = used .. ':' .. at
      return 'applied', rev, '', seq
    end
    local function one(client, user, seq, ops, refusal)
      local last = progress[client]
      if seq == 0 then
        seq = 1
        if last then seq = tonumber(string.sub(last, 1, string.find(last, ':', 1, true) - 1)) + 1 end
        last = nil
      end
      -- Lua numbers are doubles: beyond 2^53 a seq would be rounded and printed in exponent form.
      if not seq or seq < 1 or seq > 9007199254740991 or seq ~= math.floor(seq) then
        return 'rejected', rev, 'seq must be a whole number from 1 to 2^53 - 1', 0
      end
      if last then
        local sep = string.find(last, ':', 1, true)
        local lastSeq, lastRev = tonumber(string.sub(last, 1, sep - 1)), tonumber(string.sub(last, sep + 1))
        if seq == lastSeq then return 'duplicate', lastRev, '', seq end
        if seq < lastSeq then
          -- An older seq (a resent batch): find its rev among the client's recent entries, bounded.
          local entries = redis.call('XREVRANGE', KEYS[3], int(lastRev) .. '-0', '-', 'COUNT', 512)
          for _, entry in ipairs(entries) do
            local fields, entryClient, entrySeq = entry[2], nil, nil
            for i = 1, #fields, 2 do
              if fields[i] == 'client' then entryClient = fields[i + 1] elseif fields[i] == 'seq' then entrySeq = tonumber(fields[i + 1]) end
            end
            if entryClient == client and entrySeq == seq then return 'duplicate', tonumber(string.match(entry[1], '^(%d+)')), '', seq end
          end
          return 'duplicate', rev, '', seq
        end
      end
      if base >= 0 and base + appended ~= rev then return 'behind', rev, '', seq end
      -- The node found the patch invalid against its replica at this very rev: refuse it here, after the
      -- duplicate and base-rev checks, so a resent patch is still recognised and a stale verdict is redone.
      if refusal ~= '' then return 'rejected', rev, refusal, seq end
      if #ops > maxBytes then return 'rejected', rev, 'the patch has ' .. #ops .. ' bytes, more than the limit of ' .. maxBytes, seq end
      if checked then return appendEntry(client, user, seq, ops) end
      local ok, decoded = pcall(cjson.decode, ops)
      if not ok or type(decoded) ~= 'table' or (#decoded == 0 and next(decoded) ~= nil) then
        return 'rejected', rev, 'ops must be a JSON array', seq
      end
      if #decoded > maxOps then return 'rejected', rev, 'the patch has ' .. #decoded .. ' ops, more than the limit of ' .. maxOps, seq end
      for i, op in ipairs(decoded) do
        local shaped = type(op) == 'table' and type(op.path) == 'string' and ((valued[op.op] and op.value ~= nil)
          or op.op == 'remove' or ((op.op == 'move' or op.op == 'copy') and type(op.from) == 'string'))
        if not shaped then
          return 'rejected', rev, 'op ' .. (i - 1) .. ' must be set, add, replace or test with a path and a value, remove with a path, or move or copy with a from and a path', seq
        end
      end
      return appendEntry(client, user, seq, ops)
    end
    local replies, entries, diverged = {epoch, created}, {'P', field(epoch)}, false
    for i = 9, #ARGV - 5, 5 do
      local status, at, reason, seq = 'skipped', rev, '', 0
      if not diverged then
        status, at, reason, seq = one(ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3], ARGV[i + 4])
        diverged = status ~= (ARGV[i + 4] == '' and 'applied' or 'rejected')
        if status == 'applied' then
          table.insert(entries, field(int(at)) .. field(ARGV[i + 1]) .. field(ARGV[i]) .. field(int(seq)) .. field(time) .. field(ARGV[i + 3]))
        end
      end
      table.insert(replies, status)
      table.insert(replies, at)
      table.insert(replies, reason)
      table.insert(replies, seq)
    end
    if appended > 0 then
      local updates = {}
      for _, client in ipairs(written) do table.insert(updates, client); table.insert(updates, progress[client]) end
      redis.call('HSET', KEYS[2], unpack(updates))
      redis.call('HSET', KEYS[1], 'rev', int(rev))
      if created ~= 0 then notify(epoch) end
      redis.call('SPUBLISH', channel, table.concat(entries))
    elseif created ~= 0 then
      notify(epoch)
    end
    return replies
    """

    /// Brings back a room Redis lost, from a node's copy: only when the room's meta is gone, creates it
    /// in a new epoch at rev 0 with the copy as its snapshot and the clients' progress (each at rev 0).
    /// Returns 1 when it seeded, 0 when the room exists (someone was first, or nothing was lost), 2 when
    /// the node's copy is of a room a backend deleted (it must not come back).
    /// KEYS: meta, clients, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence,
    /// state, the epoch of the node's copy, then client id and last seq pairs.
    static let seed = RedisScript(prelude + """
    if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
    if redis.call('GET', KEYS[6]) == ARGV[4] then return 2 end
    local epoch = ensure(ARGV[1], ARGV[2], '')
    redis.call('HSET', KEYS[4], 'epoch', epoch, 'rev', 0, 'state', ARGV[3])
    redis.call('HSET', KEYS[5], '0', ARGV[3])
    for i = 5, #ARGV - 1, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1] .. ':0') end
    notify(epoch)
    return 1
    """)

    /// Deletes a room (a backend's `DELETE`): its meta, progress, log and snapshots, leaving a marker of
    /// its epoch for ARGV[1] seconds so that the nodes serving it close its connections as deleted and
    /// none brings it back from memory. Returns 1, or 0 when there was no room.
    /// KEYS: meta, clients, log, snapshot, snapshots, deleted. ARGV: how long the marker stays (seconds).
    static let delete = RedisScript(prelude + """
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
    if not epoch then return 0 end
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
    redis.call('SET', KEYS[6], epoch, 'EX', ARGV[1])
    notify('')
    return 1
    """)

    /// Stores a document snapshot if it is for the room's current epoch and newer than the stored one,
    /// also among the snapshots the history is rebuilt from, dropping those older than ARGV[4]. With a
    /// cutoff time (ARGV[5] ≥ 0) it also drops the log's entries written before it, never one at or after
    /// the keep-from rev ARGV[6] (the resume window) and never past an entry without a time, cut back to
    /// the newest snapshot before that point (so every retained rev still rebuilds), then the snapshots
    /// older than it. The walk is bounded per call; what is left goes at the next snapshot. Returns 1
    /// when stored, 0 when not.
    /// KEYS: meta, clients, log, snapshot, snapshots, deleted. ARGV: epoch, rev, state, oldest snapshot rev
    /// to keep, cutoff time (unix ms, -1: none), keep-from rev.
    static let storeSnapshot = RedisScript("""
    if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
    local stored = tonumber(redis.call('HGET', KEYS[4], 'rev') or '-1')
    if redis.call('HGET', KEYS[4], 'epoch') == ARGV[1] and stored >= tonumber(ARGV[2]) then return 0 end
    redis.call('HSET', KEYS[4], 'epoch', ARGV[1], 'rev', ARGV[2], 'state', ARGV[3])
    redis.call('HSET', KEYS[5], ARGV[2], ARGV[3])
    local oldest = tonumber(ARGV[4])
    local cutoff, keepFrom = tonumber(ARGV[5]), tonumber(ARGV[6])
    if cutoff >= 0 then
      local trimTo, from, done = nil, '-', false
      for _ = 1, 16 do
        local entries = redis.call('XRANGE', KEYS[3], from, '+', 'COUNT', 256)
        for _, entry in ipairs(entries) do
          local at, time, fields = tonumber(string.match(entry[1], '^(%d+)')), nil, entry[2]
          for i = 1, #fields, 2 do if fields[i] == 'time' then time = tonumber(fields[i + 1]) end end
          if at >= keepFrom or not time or time >= cutoff then done = true break end
          trimTo = at + 1
        end
        if done or #entries < 256 then break end
        from = '(' .. entries[#entries][1]
      end
      if trimTo then
        -- Back to the newest snapshot before the cut, so that every retained rev can still be rebuilt;
        -- without one, nothing goes yet.
        local floor = -1
        for _, field in ipairs(redis.call('HKEYS', KEYS[5])) do
          local rev = tonumber(field)
          if rev <= trimTo - 1 and rev > floor then floor = rev end
        end
        if floor >= 0 then
          redis.call('XTRIM', KEYS[3], 'MINID', string.format('%d', floor + 1) .. '-0')
          if floor > oldest then oldest = floor end
        end
      end
    end
    for _, field in ipairs(redis.call('HKEYS', KEYS[5])) do
      if tonumber(field) < oldest then redis.call('HDEL', KEYS[5], field) end
    end
    return 1
    """)

    /// Shared by `open` and `append`: the room's epoch and rev, and 0 (as it was), 1 (created: its meta
    /// was gone) or 2 (epoch rotated: Redis restarted since the room's last write and its persistence is
    /// not trusted to have kept every acknowledged write, so the history may have rewound; the log and
    /// rev are kept, but clients must take a snapshot). ARGV[1] is the epoch candidate, the last ARGV
    /// is "1" when the operator declared Redis's persistence complete (appendfsync always). `known` is the
    /// run id of the Redis process as the node's connection learned it when it opened (a connection never
    /// outlives its process): reading it with `INFO server` costs more than the rest of a small append.
    ///
    /// Every change that breaks a follower's continuity is also told on the room's change channel
    /// (`P:{R}:changes`, the meta key's name with `changes` for `meta`, so it hashes to the room's slot):
    /// `E` and the new epoch (empty: the room is gone), see `RoomChangeMessage`.
    private static let prelude = """
    local channel = string.sub(KEYS[1], 1, -5) .. 'changes'
    local function int(number) return string.format('%d', number) end
    local function field(text) return string.format('%d', #text) .. ':' .. text end
    local function notify(epoch) redis.call('SPUBLISH', channel, 'E' .. field(epoch)) end
    local function ensure(candidate, trusted, known, meta)
      local run = known
      if run == nil or run == '' then run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') end
      meta = meta or redis.call('HMGET', KEYS[1], 'epoch', 'rev', 'run')
      local epoch = meta[1]
      if epoch then
        local rev = tonumber(meta[2])
        if meta[3] == run then return epoch, rev, 0 end
        redis.call('HSET', KEYS[1], 'run', run)
        if trusted == '1' then return epoch, rev, 0 end
        redis.call('HSET', KEYS[1], 'epoch', candidate)
        return candidate, rev, 2
      end
      redis.call('DEL', KEYS[2], KEYS[3], KEYS[4], KEYS[5])
      redis.call('HSET', KEYS[1], 'epoch', candidate, 'rev', 0, 'run', run)
      return candidate, 0, 1
    end

    """
}
