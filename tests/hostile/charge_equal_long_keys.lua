-- expect: charge_equal_long_keys.lua:9: error: instruction budget exceeded
-- A lookup by a long string that equals a key but is another object compares all 4 MB of it
-- (`luaS_eqlngstr`), and a fresh long string is hashed in full (`luaS_hashlongstr`): both paid.
local M = {}
function M.decide(self, world)
  local a = string.rep("k", 4 * 1024 * 1024)
  local b = string.rep("k", 4 * 1024 * 1024)
  local t = { [a] = 1 }
  for i = 1, 1e9 do local v = t[b] end
  return move.stop()
end
return M
