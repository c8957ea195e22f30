-- expect: charge_fresh_long_keys.lua:9: error: instruction budget exceeded
-- Beyond the issue's list: each pass makes a fresh 8 MB string (one cheap `..`) and looks it
-- up, so Lua hashes all of it (`luaS_hashlongstr`) and compares it with the key in full.
local M = {}
function M.decide(self, world)
  local s = "k"
  while #s < 8e6 do s = s .. s end
  local t = { [s .. "!"] = 1 }
  for i = 1, 1e9 do local v = t[s .. "!"] end
  return move.stop()
end
return M
