-- expect: charge_utf8_len.lua:7: error: instruction budget exceeded
-- `utf8.len` decodes every byte of its argument in C. It charged nothing: a 4 MB string cost
-- 4 ms a pass for a few units of the loop. Every string a C function reads is now paid by size.
local M = {}
function M.decide(self, world)
  local s = string.rep("é", 2 * 1024 * 1024)
  for i = 1, 1e9 do local n = utf8.len(s) end
  return move.stop()
end
return M
