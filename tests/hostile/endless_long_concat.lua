-- expect: endless_long_concat.lua:7: error: instruction budget exceeded
-- `..` copies both strings: a long one makes each pass costly.
-- The VM charged the loop a few units a pass, not the C work: this ran for minutes per call.
local M = {}
function M.decide(self, world)
  local s, s2 = string.rep("x", 1e7), string.rep("x", 1e7)
  for i = 1, 1e9 do local t = s .. 'y' end
  return move.stop()
end
return M
