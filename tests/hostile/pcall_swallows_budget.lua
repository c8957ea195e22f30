-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  -- The budget stays spent: the pcall returns, but the call still counts as stopped.
  pcall(function() while true do end end)
  return move.stop()
end
return M
