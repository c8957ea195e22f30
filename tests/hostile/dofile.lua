-- expect: attempt to call a nil value (global 'dofile')
local M = {}
function M.decide(self, world)
  dofile("/etc/passwd")
  return move.stop()
end
return M
