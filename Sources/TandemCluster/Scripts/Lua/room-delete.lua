local epoch = redis.call('HGET', KEYS[1], 'epoch')
if not epoch then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('SET', KEYS[5], epoch, 'EX', ARGV[1])
notify(KEYS[1], '')
return 1
