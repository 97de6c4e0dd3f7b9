prefix, now, idPrefix = ARGV[1], ARGV[3], ARGV[6]
events, changes = KEYS[1], KEYS[2]
local node = ARGV[2]
local debounce, maxPaths = tonumber(ARGV[5]), tonumber(ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[4], node)
local i = 8
while i <= #ARGV do
  local kind, room, a, b, count = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4])
  local members = prefix .. ':members:' .. room
  if kind == 'j' then
    local known = redis.call('HGET', members, a)
    if known then
      local old = string.match(known, '^([^' .. sep .. ']*)')
      if old ~= node then redis.call('SREM', prefix .. ':node:' .. old, room .. sep .. a) end
    else
      if redis.call('HLEN', members) == 0 then emit(room, 'room.started', '{}') end
      emit(room, 'participant.joined', b)
    end
    redis.call('HSET', members, a, node .. sep .. b)
    redis.call('SADD', KEYS[4], room .. sep .. a)
  elseif kind == 'l' then
    leave(room, a, node, b)
  elseif kind == 'c' then
    local key = prefix .. ':change:' .. room
    local current = redis.call('HGET', key, 'rev')
    local reported = redis.call('GET', prefix .. ':reported:' .. room)
    if current or not reported or tonumber(a) > tonumber(reported) then
      if not current then
        redis.call('HSET', key, 'rev', a)
        redis.call('ZADD', changes, tonumber(now) + debounce, room)
      elseif tonumber(a) > tonumber(current) then
        redis.call('HSET', key, 'rev', a)
      end
      if b == '1' then redis.call('HSET', key, 'truncated', '1') end
      local pathsKey = prefix .. ':change-paths:' .. room
      for p = 1, count do
        local path = ARGV[i + 4 + p]
        if redis.call('SCARD', pathsKey) < maxPaths then
          redis.call('SADD', pathsKey, path)
        elseif redis.call('SISMEMBER', pathsKey, path) == 0 then
          redis.call('HSET', key, 'truncated', '1')
        end
      end
    end
  elseif kind == 'e' then
    emit(room, a, b)
  end
  i = i + 5 + count
end
return emitted
