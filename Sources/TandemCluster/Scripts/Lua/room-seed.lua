if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('GET', KEYS[5]) == ARGV[4] then return 2 end
local epoch = ensure(ARGV[1], ARGV[2], '')
redis.call('HSET', KEYS[3], 'epoch', epoch, 'rev', 0, 'state', ARGV[3])
redis.call('HSET', KEYS[4], '0', ARGV[3])
for i = 6, #ARGV - 1, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1] .. ':0') end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'forgot', 1) end
notify(KEYS[1], epoch)
return 1
