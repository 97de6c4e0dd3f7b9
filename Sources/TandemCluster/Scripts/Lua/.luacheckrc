-- Redis runs Lua 5.1 with these globals (and cjson); every script here is checked as Redis runs it,
-- after its prelude (ClusterScripts.all, LuaScriptCheckTests).
std = "lua51"
read_globals = { "redis", "KEYS", "ARGV", "cjson" }
max_line_length = 160
