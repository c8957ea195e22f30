-- expect: endless_unpack.lua:8: error: instruction budget exceeded
-- `table.unpack` (like `string.byte`) pushes every element: a big range makes each pass costly.
-- The VM charged the loop a few units a pass, not the C work: this ran for minutes per call.
local M = {}
function M.decide(self, world)
  local t = {}
  for i = 1, 1e5 do t[i] = i end
  for i = 1, 1e9 do local n = select("#", table.unpack(t)) end
  return move.stop()
end
return M
