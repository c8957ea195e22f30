-- expect: attempt to call a nil value (method 'dump')
local M = {}
function M.decide(self, world)
  local bytes = ("x"):dump()
  return move.stop()
end
return M
