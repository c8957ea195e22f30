-- expect: attempt to call a nil value (global 'loadfile')
local M = {}
function M.decide(self, world)
  local f = loadfile("/etc/passwd")
  return move.stop()
end
return M
