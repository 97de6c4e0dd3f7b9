if redis.call('GET', KEYS[4]) ~= ARGV[2] then return {0} end
redis.call('PEXPIRE', KEYS[4], ARGV[4])
prefix, now, idPrefix = ARGV[1], ARGV[3], ARGV[5]
events, changes = KEYS[1], KEYS[2]
for _, room in ipairs(redis.call('ZRANGEBYSCORE', changes, '-inf', now, 'LIMIT', 0, 256)) do closeChange(room) end
-- Members of nodes that stopped refreshing leave, a bounded number per tick.
local budget = 1000
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 8)) do
  local index = prefix .. ':node:' .. gone
  local entries = redis.call('SMEMBERS', index)
  table.sort(entries)
  for _, entry in ipairs(entries) do
    if budget == 0 then break end
    budget = budget - 1
    local room, client = string.match(entry, '^(.*)' .. sep .. '([^' .. sep .. ']*)$')
    redis.call('SREM', index, entry)
    if room then leave(room, client, gone, nil) end
  end
  if redis.call('SCARD', index) == 0 then redis.call('ZREM', KEYS[3], gone) end
end
local limit = tonumber(ARGV[6])
local taken = redis.call('XRANGE', events, '-', '+', 'COUNT', limit + 1)
local out = {1, #taken > limit and 1 or 0}
for n = 1, math.min(#taken, limit) do
  local entry = taken[n]
  local f = {}
  for k = 1, #entry[2], 2 do f[entry[2][k]] = entry[2][k + 1] end
  for e = 7, #ARGV do
    local seq = redis.call('INCR', KEYS[5])
    local record = ARGV[e] .. sep .. f.room .. sep .. f.id .. sep .. f.type .. sep .. f.time .. sep .. f.fields
    redis.call('HSET', KEYS[6], seq, record)
    out[#out + 1] = seq
    out[#out + 1] = record
  end
  redis.call('XDEL', events, entry[1])
end
return out
