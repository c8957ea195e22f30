-- expect: endless_long_compare.lua:7: error: instruction budget exceeded
-- Comparing two equal long strings reads every byte (`==`, `<`, `<=`).
-- The VM charged the loop a few units a pass, not the C work: this ran for minutes per call.
local M = {}
function M.decide(self, world)
  local s, s2 = string.rep("x", 1e7), string.rep("x", 1e7)
  for i = 1, 1e9 do local t = s == s2 or s < s2 end
  return move.stop()
end
return M
