-- The context the functions below read (the key prefix, the time, the event id prefix, the events
-- stream and the open-changes set): each script sets it before it calls them.
local prefix, now, idPrefix, events, changes
local sep = '\31'
local emitted = 0
local function emit(room, kind, fields)
  emitted = emitted + 1
  redis.call('XADD', events, '*', 'room', room, 'id', idPrefix .. string.format('%012x', emitted),
             'type', kind, 'time', now, 'fields', fields)
end
local function closeChange(room)
  local key = prefix .. ':change:' .. room
  local rev = redis.call('HGET', key, 'rev')
  if not rev then return end
  local pathsKey = prefix .. ':change-paths:' .. room
  local paths = redis.call('SMEMBERS', pathsKey)
  table.sort(paths)
  local fields = '{"paths":[' .. table.concat(paths, ',') .. '],"rev":' .. rev
  if redis.call('HGET', key, 'truncated') == '1' then fields = fields .. ',"pathsTruncated":true' end
  emit(room, 'state.changed', fields .. '}')
  redis.call('DEL', key, pathsKey)
  redis.call('ZREM', changes, room)
  redis.call('SET', prefix .. ':reported:' .. room, rev, 'PX', 86400000)
end
local function leave(room, client, node, fields)
  local members = prefix .. ':members:' .. room
  local known = redis.call('HGET', members, client)
  if not known or string.sub(known, 1, #node + 1) ~= node .. sep then return end
  if not fields then fields = string.sub(known, #node + 2) end
  redis.call('HDEL', members, client)
  redis.call('SREM', prefix .. ':node:' .. node, room .. sep .. client)
  local last = redis.call('HLEN', members) == 0
  if last then closeChange(room) end
  emit(room, 'participant.left', fields)
  if last then emit(room, 'room.ended', '{}') end
end
