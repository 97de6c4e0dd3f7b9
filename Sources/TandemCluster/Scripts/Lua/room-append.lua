-- Only what every room needs is decoded up front: a short form at the expected rev needs no more.
local candidate, trusted, time, last = ARGV[1], ARGV[2], ARGV[4], #ARGV
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
  local window = tonumber(ARGV[3])
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
  local function sequence(meta, log, count, base, a)
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
          status, reason, used = 'rejected', rejection('invalid_op', 'seq must be a whole number from 1 to 2^53 - 1'), 0
        elseif known and seq == known[1] then status, at = 'duplicate', known[2]
        elseif known and seq < known[1] then status, at = 'duplicate', original(log, client, seq, known[2], rev)
        elseif base >= 0 and base + #records ~= rev then status = 'behind'
        -- The node found the patch invalid (against its replica at this very rev, or in its form): refuse
        -- it here, after the duplicate and base-rev checks, so a resent patch is still recognised and a
        -- stale verdict is redone. What makes a patch valid is the node's to say, never the script's.
        elseif refusal ~= '' then status, reason = 'rejected', refusal
        else
          rev = rev + 1
          status, at = 'applied', rev
          records[#records + 1] = record
          local mine = progress[client]
          if mine then mine[1], mine[2], mine[3] = seq, rev, true else progress[client] = {seq, rev, true} end
          mine = progress[client]
          mine[4] = fields and int(seq) or ARGV[i + 1]
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
local k, a = 0, 5
while a < passed do
  if ARGV[a] == 'F' then
    appendWhole(roomKey(k + 1), roomKey(k + 2), a)
    a = a + 10 + 3 * tonumber(ARGV[a + 4])
  else
    local count = tonumber(ARGV[a])
    sequence = sequence or longForm()
    sequence(roomKey(k + 1), roomKey(k + 2), count, tonumber(ARGV[a + 1]), a + 2)
    a = a + 2 + 4 * count
  end
  k = k + 2
end
return replies
