-- expect: charge_tonumber.lua:7: error: instruction budget exceeded
-- `tonumber` of a 16 MB string that is no number scans all of it in C (`l_str2d`).
-- The string it reads is paid by size, whatever the function does with it.
local M = {}
function M.decide(self, world)
  local s = string.rep("1111111111111111", 1024 * 1024 - 1) .. "111111111111111x"
  for i = 1, 1e9 do local n = tonumber(s) end
  return move.stop()
end
return M
