-- expect: instruction budget exceeded
-- A metamethod that never returns, run by print/tostring inside decide: still budgeted.
local M = {}
function M.decide(self, world)
  local t = setmetatable({}, { __tostring = function() while true do end end })
  print(t)
  return move.stop()
end
return M
