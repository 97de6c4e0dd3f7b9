import TandemRedis

/// The Lua scripts of the cluster's room sequencer. Each runs atomically inside Redis, so every node
/// sees one total order per room without any coordination of its own.
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
    static let open = RedisScript(prelude + """
    local epoch, rev, created = ensure(ARGV[1], ARGV[2], ARGV[3])
    if created ~= 0 then notify(KEYS[1], epoch) end
    return {epoch, rev, created}
    """)

    /// Sequences the batches of one or more rooms (a node's group commit: one call per Redis round trip
    /// for every room with patches ready, whatever the number of patches). For each room, in order, and
    /// for each patch of its batch: exactly-once by client seq, compare-with-base-rev, the node's own
    /// verdict, structural validation, rev + 1. The patches a room's batch appended go to its log as ONE
    /// entry, and the same bytes go on the room's change channel, so followers need not read the log:
    /// the per-patch work left in Lua is the exactly-once check.
    ///
    /// The node built each batch expecting each patch to be `applied`, or `rejected` where it passed
    /// its own rejection reason. At the first patch that ends otherwise (`duplicate`, `behind`, a
    /// structural `rejected`), the room's patches after it are not looked at (`skipped`): they were
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
    /// "0"), max ops, max patch bytes, window, the time (unix ms); then per room, in the long form: its number of patches,
    /// base rev (-1: any), "1" when the node parsed and validated every patch's ops (and their size),
    /// then four values per patch: the author's progress field, seq, the node's own rejection reason (empty when the node
    /// found the patch valid) and its record (`RoomChangeMessage`: user, client, seq, ops); or in the
    /// short form: `F`, the expected epoch, the expected rev, "1" when the batch may only be appended at
    /// that rev, the number of clients `n`, the change message as if appended at the expected rev, the
    /// length of its header (kind, epoch, first rev, time), its last rev and first rev and the trim
    /// bound (empty: none) as if appended there, the `n` authors' progress fields, then per author the
    /// prefix its stored progress has when its first seq in the batch follows the last one ("seq − 1:")
    /// and its progress after the batch as if appended at the expected rev ("seq:rev:time"); then the
    /// meta and log keys of the rooms KEYS does not hold, in order, and their number; last, the Redis
    /// run id (empty: the script reads it).
    static let append = RedisScript(prelude + """
    -- Only what every room needs is decoded up front: a short form at the expected rev needs no more.
    local candidate, trusted, time, last = ARGV[1], ARGV[2], ARGV[6], #ARGV
    local run = runID(ARGV[last])
    -- Keys passed as arguments (rooms of several slots on one shard) are all touched before anything is
    -- written: one that is not on this shard (a slot moved) fails the call here, whole.
    local passed = last - 1 - tonumber(ARGV[last - 1])
    for i = passed, last - 2, 2 do redis.call('EXISTS', ARGV[i]) end
    local declared = #KEYS
    local function roomKey(i)
      if i <= declared then return KEYS[i] end
      return ARGV[passed + i - declared - 1]
    end
    local replies = {}
    -- The log keeps the window: the bound of the exact trim after an append that took the room from rev
    -- `before` to `top`, when one is due (every 64 revs from a window of 1,000 on, else at every append).
    local function trimBound(top, before)
      local window = tonumber(ARGV[5])
      if top - window >= 1 and (window < 1000 or math.floor(top / 64) ~= math.floor(before / 64)) then return top - window + 1 end
      return nil
    end
    -- Drops the entries before the one holding rev `bound`: entries are keyed by their first rev, so
    -- that one is the newest at or before it (the log then keeps at least the revs from `bound` on).
    local function trimTo(log, bound)
      local holding = redis.call('XREVRANGE', log, bound, '-', 'COUNT', 1)[1]
      if holding then redis.call('XTRIM', log, 'MINID', holding[1]) end
    end
    -- The long form, built for the first room that needs it: a call of short forms only does not pay
    -- for its functions. `recordFields` splits a patch record (user, client, seq, ops as `length:bytes`
    -- fields); `entryPatches` gives a log entry's patches as `{rev, user, client, seq}`, for entries of
    -- either form (one batch with its change message, or one patch with its fields).
    local function longForm()
      local function fieldAt(text, at)
        local colon = string.find(text, ':', at, true)
        local length = tonumber(string.sub(text, at, colon - 1))
        return string.sub(text, colon + 1, colon + length), colon + length + 1
      end
      local function recordFields(record)
        local values, at = {}, 1
        for n = 1, 4 do values[n], at = fieldAt(record, at) end
        return values
      end
      local function entryPatches(entry)
        local values, fields = {}, entry[2]
        for i = 1, #fields, 2 do values[fields[i]] = fields[i + 1] end
        local id = tonumber(string.match(entry[1], '^(%d+)'))
        if not values.m then return {{id, values.user, values.client, values.seq}} end
        local message, patches = values.m, {}
        local _, at = fieldAt(message, 2)
        local first
        first, at = fieldAt(message, at)
        _, at = fieldAt(message, at)
        local rev = tonumber(first)
        while at <= #message do
          local user, client, seq
          user, at = fieldAt(message, at)
          client, at = fieldAt(message, at)
          seq, at = fieldAt(message, at)
          _, at = fieldAt(message, at)
          patches[#patches + 1] = {rev, user, client, seq}
          rev = rev + 1
        end
        return patches
      end
      local function invalid(ops)
        local maxOps, maxBytes = tonumber(ARGV[3]), tonumber(ARGV[4])
        -- Protocol v1 ops: set, add, replace and test carry a value, remove a path alone, move and copy a from.
        local valued = {set = true, add = true, replace = true, test = true}
        if #ops > maxBytes then return 'the patch has ' .. #ops .. ' bytes, more than the limit of ' .. maxBytes end
        local ok, decoded = pcall(cjson.decode, ops)
        if not ok or type(decoded) ~= 'table' or (#decoded == 0 and next(decoded) ~= nil) then return 'ops must be a JSON array' end
        if #decoded > maxOps then return 'the patch has ' .. #decoded .. ' ops, more than the limit of ' .. maxOps end
        for i, op in ipairs(decoded) do
          local shaped = type(op) == 'table' and type(op.path) == 'string' and ((valued[op.op] and op.value ~= nil)
            or op.op == 'remove' or ((op.op == 'move' or op.op == 'copy') and type(op.from) == 'string'))
          if not shaped then
            return 'op ' .. (i - 1) .. ' must be set, add, replace or test with a path and a value, remove with a path, or move or copy with a from and a path'
          end
        end
        return nil
      end
      -- The rev of an older seq of the client (a resent batch): among the entries up to the one holding
      -- its last rev, newest first, bounded by the patches looked at. An entry's id is its first rev (its
      -- last in older logs): the walk starts at the first entry at or after `lastRev`, or at the newest
      -- when there is none, and so takes in the one holding it.
      local function original(log, client, seq, lastRev, rev)
        local top = redis.call('XRANGE', log, int(lastRev) .. '-0', '+', 'COUNT', 1)[1]
        local looked = 0
        for _, entry in ipairs(redis.call('XREVRANGE', log, top and top[1] or '+', '-', 'COUNT', 512)) do
          local patches = entryPatches(entry)
          for j = #patches, 1, -1 do
            if progressField(patches[j][2], patches[j][3]) == client and tonumber(patches[j][4]) == seq then return patches[j][1] end
          end
          looked = looked + #patches
          if looked >= 512 then break end
        end
        return rev
      end
      local function sequence(meta, log, count, base, checked, a)
        -- The room's epoch, rev and run with each client's last seq and its rev, read in one call for the
        -- batch and written in one at its end.
        local progress, names = {}, {}
        for i = a, a + 4 * count - 4, 4 do
          if progress[ARGV[i]] == nil then progress[ARGV[i]] = false; names[#names + 1] = ARGV[i] end
        end
        local stored = redis.call('HMGET', meta, 'epoch', 'rev', 'run', unpack(names))
        if not stored[1] then
          replies[#replies + 1] = 3; replies[#replies + 1] = ''; replies[#replies + 1] = 0; replies[#replies + 1] = 'lost'
          return
        end
        local epoch, rev, created = rotate(meta, candidate, trusted, run, stored)
        for n, name in ipairs(names) do
          local text = stored[3 + n]
          if text then
            local sep = string.find(text, ':', 1, true)
            local stop = string.find(text, ':', sep + 1, true)
            progress[name] = {tonumber(string.sub(text, 1, sep - 1)), tonumber(string.sub(text, sep + 1, stop and stop - 1 or -1)), false}
          end
        end
        local header = #replies + 1
        replies[header] = 0; replies[header + 1] = epoch; replies[header + 2] = created
        local records, from, diverged = {}, rev + 1, false
        for i = a, a + 4 * count - 4, 4 do
          local status, at, reason, used = 'skipped', rev, '', 0
          if not diverged then
            local client, refusal, record = ARGV[i], ARGV[i + 2], ARGV[i + 3]
            local seq, known = tonumber(ARGV[i + 1]), progress[client]
            local fields = nil
            if seq == 0 then
              seq = known and known[1] + 1 or 1
              known = nil
              fields = recordFields(record)
              record = field(fields[1]) .. field(fields[2]) .. field(int(seq)) .. field(fields[4])
            end
            used = seq or 0
            -- Lua numbers are doubles: beyond 2^53 a seq would be rounded and printed in exponent form.
            if not seq or seq < 1 or seq > 9007199254740991 or seq ~= math.floor(seq) then
              status, reason, used = 'rejected', 'seq must be a whole number from 1 to 2^53 - 1', 0
            elseif known and seq == known[1] then status, at = 'duplicate', known[2]
            elseif known and seq < known[1] then status, at = 'duplicate', original(log, client, seq, known[2], rev)
            elseif base >= 0 and base + #records ~= rev then status = 'behind'
            -- The node found the patch invalid against its replica at this very rev: refuse it here, after the
            -- duplicate and base-rev checks, so a resent patch is still recognised and a stale verdict is redone.
            elseif refusal ~= '' then status, reason = 'rejected', refusal
            else
              local problem = nil
              if not checked then problem = invalid((fields or recordFields(record))[4]) end
              if problem then
                status, reason = 'rejected', problem
              else
                rev = rev + 1
                status, at = 'applied', rev
                records[#records + 1] = record
                local mine = progress[client]
                if mine then mine[1], mine[2], mine[3] = seq, rev, true else progress[client] = {seq, rev, true} end
                mine = progress[client]
                mine[4] = fields and int(seq) or ARGV[i + 1]
              end
            end
            diverged = status ~= (refusal == '' and 'applied' or 'rejected')
          end
          replies[#replies + 1] = status; replies[#replies + 1] = at; replies[#replies + 1] = reason; replies[#replies + 1] = used
        end
        replies[header] = #replies - header
        if #records > 0 then
          -- Numbers go to redis.call as they are: Redis prints them exactly, at less cost than string.format.
          local revText = int(rev)
          local updates = {'rev', rev}
          for _, name in ipairs(names) do
            local mine = progress[name]
            if mine and mine[3] then
              updates[#updates + 1] = name
              updates[#updates + 1] = mine[4] .. ':' .. (mine[2] == rev and revText or int(mine[2])) .. ':' .. time
            end
          end
          redis.call('HSET', meta, unpack(updates))
          local fromText = from == rev and revText or int(from)
          local message = 'B' .. field(epoch) .. field(fromText) .. field(time) .. table.concat(records)
          redis.call('XADD', log, fromText, 'm', message)
          local bound = trimBound(rev, from - 1)
          if bound then trimTo(log, bound) end
          if created ~= 0 then notify(meta, epoch) end
          redis.call('SPUBLISH', channelOf(meta), message)
        elseif created ~= 0 then
          notify(meta, epoch)
        end
      end
      return sequence
    end
    local sequence
    -- A room in the short form, its arguments from `a`: nothing per patch, and when the room is at the
    -- expected rev, nothing to build but the fields the writes take.
    local function appendWhole(meta, log, a)
      local epoch, expected, n = ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 4])
      local c, p = a + 10, a + 10 + n
      local stored
      if n == 1 then stored = redis.call('HMGET', meta, 'epoch', 'rev', 'run', ARGV[c])
      else stored = redis.call('HMGET', meta, 'epoch', 'rev', 'run', unpack(ARGV, c, p - 1)) end
      local whole = stored[1] == epoch and stored[3] == run
      if whole then
        -- Exactly-once: each client's first seq must be past its stored last one (usually right after it).
        for i = 1, n do
          local text, prefix = stored[3 + i], ARGV[p + 2 * i - 2]
          if text and string.sub(text, 1, #prefix) ~= prefix then
            local sep = string.find(text, ':', 1, true)
            if tonumber(string.sub(text, 1, sep - 1)) >= tonumber(string.sub(prefix, 1, -2)) + 1 then whole = false break end
          end
        end
      end
      if not whole then
        replies[#replies + 1] = 1; replies[#replies + 1] = 0
        return
      end
      if stored[2] ~= expected and ARGV[a + 3] == '1' then
        replies[#replies + 1] = 2; replies[#replies + 1] = -1; replies[#replies + 1] = tonumber(stored[2])
        return
      end
      local message, top, from, trim = ARGV[a + 5], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]
      if stored[2] == expected then
        if n == 1 then redis.call('HSET', meta, 'rev', top, ARGV[c], ARGV[p + 1])
        else
          local updates = {'rev', top}
          for i = 1, n do updates[2 * i + 1] = ARGV[c + i - 1]; updates[2 * i + 2] = ARGV[p + 2 * i - 1] end
          redis.call('HSET', meta, unpack(updates))
        end
      else
        -- Other nodes appended meanwhile: the same batch, every rev shifted by what they added.
        local rev = tonumber(stored[2])
        local shift = rev - tonumber(expected)
        from, top = tonumber(from) + shift, tonumber(top) + shift
        local updates = {'rev', top}
        for i = 1, n do
          local value = ARGV[p + 2 * i - 1]
          local sep = string.find(value, ':', 1, true)
          local stop = string.find(value, ':', sep + 1, true)
          updates[2 * i + 1] = ARGV[c + i - 1]
          updates[2 * i + 2] = string.sub(value, 1, sep) .. int(tonumber(string.sub(value, sep + 1, stop - 1)) + shift) .. string.sub(value, stop)
        end
        redis.call('HSET', meta, unpack(updates))
        message = 'B' .. field(epoch) .. field(int(from)) .. field(time) .. string.sub(message, tonumber(ARGV[a + 6]) + 1)
        trim = trimBound(top, rev) or ''
      end
      redis.call('XADD', log, from, 'm', message)
      if trim ~= '' then trimTo(log, trim) end
      redis.call('SPUBLISH', channelOf(meta), message)
      replies[#replies + 1] = 1; replies[#replies + 1] = from
    end
    local k, a = 0, 7
    while a < passed do
      if ARGV[a] == 'F' then
        appendWhole(roomKey(k + 1), roomKey(k + 2), a)
        a = a + 10 + 3 * tonumber(ARGV[a + 4])
      else
        local count = tonumber(ARGV[a])
        sequence = sequence or longForm()
        sequence(roomKey(k + 1), roomKey(k + 2), count, tonumber(ARGV[a + 1]), ARGV[a + 2] == '1', a + 3)
        a = a + 3 + 4 * count
      end
      k = k + 2
    end
    return replies
    """)

    /// Brings back a room Redis lost, from a node's copy: only when the room's meta is gone, creates it
    /// in a new epoch at rev 0 with the copy as its snapshot and the clients' progress (each at rev 0).
    /// Returns 1 when it seeded, 0 when the room exists (someone was first, or nothing was lost), 2 when
    /// the node's copy is of a room a backend deleted (it must not come back). When the copy's room
    /// had dropped some client's progress, the new one says so too (`forgot`).
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: epoch candidate, trusted persistence,
    /// state, the epoch of the node's copy, "1" when the copy's room forgot clients, then pairs of an
    /// author's progress field and its last seq.
    static let seed = RedisScript(prelude + """
    if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
    if redis.call('GET', KEYS[5]) == ARGV[4] then return 2 end
    local epoch = ensure(ARGV[1], ARGV[2], '')
    redis.call('HSET', KEYS[3], 'epoch', epoch, 'rev', 0, 'state', ARGV[3])
    redis.call('HSET', KEYS[4], '0', ARGV[3])
    for i = 6, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1] .. ':0') end
    if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'forgot', 1) end
    notify(KEYS[1], epoch)
    return 1
    """)

    /// Deletes a room (a backend's `DELETE`): its meta, progress, log and snapshots, leaving a marker of
    /// its epoch for ARGV[1] seconds so that the nodes serving it close its connections as deleted and
    /// none brings it back from memory. Returns 1, or 0 when there was no room.
    /// KEYS: meta, log, snapshot, snapshots, deleted. ARGV: how long the marker stays (seconds).
    static let delete = RedisScript(prelude + """
    local epoch = redis.call('HGET', KEYS[1], 'epoch')
    if not epoch then return 0 end
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
    redis.call('SET', KEYS[5], epoch, 'EX', ARGV[1])
    notify(KEYS[1], '')
    return 1
    """)

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
    static let storeSnapshot = RedisScript("""
    if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
    local stored = tonumber(redis.call('HGET', KEYS[3], 'rev') or '-1')
    if redis.call('HGET', KEYS[3], 'epoch') == ARGV[1] and stored >= tonumber(ARGV[2]) then return 0 end
    redis.call('HSET', KEYS[3], 'epoch', ARGV[1], 'rev', ARGV[2], 'state', ARGV[3])
    redis.call('HSET', KEYS[4], ARGV[2], ARGV[3])
    local oldest = tonumber(ARGV[4])
    local cutoff, keepFrom = tonumber(ARGV[5]), tonumber(ARGV[6])
    if cutoff >= 0 then
      -- The last revs of the entries that may go. An entry holds one batch and its id is its first rev
      -- (its last in logs of earlier releases, whose entries carry a `first` field), so an entry's last
      -- rev is read from the next one: its first rev - 1; the newest entry's is the room's rev. An
      -- entry's time is its `time` field (earlier releases) or the one in its change message's header.
      local ends, from, done, previousTime, previous = {}, '-', false, nil, false
      -- A change message's header: 'B', then epoch, first rev and time, each as `length:bytes`.
      local function headerTime(message)
        local at = 2
        for _ = 1, 2 do
          local colon = string.find(message, ':', at, true)
          if not colon then return nil end
          at = colon + 1 + tonumber(string.sub(message, at, colon - 1))
        end
        local colon = string.find(message, ':', at, true)
        if not colon then return nil end
        return tonumber(string.sub(message, colon + 1, colon + tonumber(string.sub(message, at, colon - 1))))
      end
      local function close(last)
        if last >= keepFrom or not previousTime or previousTime >= cutoff then done = true else ends[last] = true end
      end
      for _ = 1, 16 do
        local entries = redis.call('XRANGE', KEYS[2], from, '+', 'COUNT', 256)
        for _, entry in ipairs(entries) do
          local first, time, fields = nil, nil, entry[2]
          for i = 1, #fields, 2 do
            if fields[i] == 'time' then time = tonumber(fields[i + 1])
            elseif fields[i] == 'first' then first = tonumber(fields[i + 1])
            elseif fields[i] == 'm' and not time then time = headerTime(fields[i + 1]) end
          end
          if previous then
            close((first or tonumber(string.match(entry[1], '^(%d+)'))) - 1)
            if done then break end
          end
          previous, previousTime = true, time
        end
        if done then break end
        if #entries < 256 then
          if previous then close(tonumber(redis.call('HGET', KEYS[1], 'rev'))) end
          break
        end
        from = '(' .. entries[#entries][1]
      end
      -- Cut after the newest snapshot that ends such an entry, so that every retained rev can still be
      -- rebuilt (the snapshot, then the log from the rev after it); without one, nothing goes yet.
      local floor = -1
      for _, name in ipairs(redis.call('HKEYS', KEYS[4])) do
        local rev = tonumber(name)
        if ends[rev] and rev > floor then floor = rev end
      end
      if floor >= 0 then
        redis.call('XTRIM', KEYS[2], 'MINID', string.format('%d', floor + 1) .. '-0')
        if floor > oldest then oldest = floor end
      end
    end
    for _, field in ipairs(redis.call('HKEYS', KEYS[4])) do
      if tonumber(field) < oldest then redis.call('HDEL', KEYS[4], field) end
    end
    local now, cap, ttl = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
    -- At most five fields of meta are not progress (epoch, rev, run, forgot, swept).
    local over = redis.call('HLEN', KEYS[1]) - 5 > cap + math.max(1, math.floor(cap / 16))
    if over or now >= tonumber(redis.call('HGET', KEYS[1], 'swept') or '0') + math.min(ttl, 3600000) then
      local fields, kept, dropped, stamped = redis.call('HGETALL', KEYS[1]), {}, {}, {}
      for i = 1, #fields, 2 do
        local name, value = fields[i], fields[i + 1]
        local prefix = string.sub(name, 1, 2)
        -- Progress kept per bare client id (earlier releases) has no known owner: it goes, as forgotten.
        if prefix == 'c:' then dropped[#dropped + 1] = name
        elseif prefix == 'a:' then
          local sep = string.find(value, ':', 1, true)
          local stop = string.find(value, ':', sep + 1, true)
          local seen = stop and tonumber(string.sub(value, stop + 1))
          if not seen then
            stamped[#stamped + 1] = name; stamped[#stamped + 1] = value .. ':' .. ARGV[7]
            seen = now
          end
          if now - seen > ttl then dropped[#dropped + 1] = name
          else kept[#kept + 1] = {name, tonumber(string.sub(value, sep + 1, stop and stop - 1 or -1))} end
        end
      end
      if #kept > cap then
        table.sort(kept, function(a, b) return a[2] < b[2] end)
        for i = 1, #kept - cap do dropped[#dropped + 1] = kept[i][1] end
      end
      -- In slices: Lua's unpack takes a few thousand values at most. Stamped first, so that a client
      -- dropped by the cap goes too.
      for i = 1, #stamped, 1000 do redis.call('HSET', KEYS[1], unpack(stamped, i, math.min(i + 999, #stamped))) end
      for i = 1, #dropped, 1000 do redis.call('HDEL', KEYS[1], unpack(dropped, i, math.min(i + 999, #dropped))) end
      if #dropped > 0 then redis.call('HSET', KEYS[1], 'forgot', 1) end
      redis.call('HSET', KEYS[1], 'swept', ARGV[7])
    end
    return 1
    """)

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
    static let prelude = """
    local function int(number) return string.format('%d', number) end
    local function field(text) return string.format('%d', #text) .. ':' .. text end
    -- An author's exactly-once field in meta, as `RoomKeys.progressField(author:)` builds it.
    local function progressField(user, client) return 'a:' .. field(user) .. client end
    local function channelOf(meta) return string.sub(meta, 1, -5) .. 'changes' end
    local function notify(meta, epoch) redis.call('SPUBLISH', channelOf(meta), 'E' .. field(epoch)) end
    local function runID(known)
      if known == nil or known == '' then return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') end
      return known
    end
    local function rotate(meta, candidate, trusted, run, stored)
      local rev = tonumber(stored[2])
      if stored[3] == run then return stored[1], rev, 0 end
      redis.call('HSET', meta, 'run', run)
      if trusted == '1' then return stored[1], rev, 0 end
      redis.call('HSET', meta, 'epoch', candidate)
      return candidate, rev, 2
    end
    local function ensure(candidate, trusted, known)
      local run = runID(known)
      local stored = redis.call('HMGET', KEYS[1], 'epoch', 'rev', 'run')
      if stored[1] then return rotate(KEYS[1], candidate, trusted, run, stored) end
      redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
      redis.call('HSET', KEYS[1], 'epoch', candidate, 'rev', 0, 'run', run)
      return candidate, 0, 1
    end

    """
}
