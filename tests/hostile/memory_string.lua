-- expect: memory limit exceeded
local M = {}
function M.decide(self, world)
  local s = string.rep("x", 1e9)
  return move.stop()
end
return M
