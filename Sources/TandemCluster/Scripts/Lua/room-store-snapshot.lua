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
