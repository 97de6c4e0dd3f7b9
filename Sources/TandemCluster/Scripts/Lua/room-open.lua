local epoch, rev, created = ensure(ARGV[1], ARGV[2], ARGV[3])
if created ~= 0 then notify(KEYS[1], epoch) end
return {epoch, rev, created}
