-- expect: is not a module name
local M = {}
function M.decide(self, world)
  require("/etc/passwd")
  return move.stop()
end
return M
