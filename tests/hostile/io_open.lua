-- expect: attempt to index a nil value (global 'io')
local M = {}
function M.decide(self, world)
  local f = io.open("/etc/passwd")
  return move.stop()
end
return M
