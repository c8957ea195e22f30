-- expect: endless_long_upper.lua:7: error: instruction budget exceeded
-- `upper` (like `lower`, `reverse`, `sub`, `format('%s')`) works a step per byte of a long string.
-- The VM charged the loop a few units a pass, not the C work: this ran for minutes per call.
local M = {}
function M.decide(self, world)
  local s, s2 = string.rep("x", 1e7), string.rep("x", 1e7)
  for i = 1, 1e9 do local t = s:upper() end
  return move.stop()
end
return M
