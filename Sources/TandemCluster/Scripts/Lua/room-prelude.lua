-- Functions every room script but room-store-snapshot runs after; each script calls only some of them.
-- luacheck: push ignore 211
local function int(number) return string.format('%d', number) end
local function field(text) return string.format('%d', #text) .. ':' .. text end
-- An author's exactly-once field in meta, as `RoomKeys.progressField(author:)` builds it.
local function progressField(user, client) return 'a:' .. field(user) .. client end
-- A rejection as the node reads it (`ClusterRejection`): its code (RejectCode's wire value), U+001F, its message.
local function rejection(code, message) return code .. '\31' .. message end
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
-- luacheck: pop
