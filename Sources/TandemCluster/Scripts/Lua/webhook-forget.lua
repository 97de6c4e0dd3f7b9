if redis.call('SCARD', KEYS[2]) == 0 then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1
