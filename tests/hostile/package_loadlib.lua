-- expect: attempt to index a nil value (global 'package')
local M = {}
function M.decide(self, world)
  package.loadlib("libc.so.6", "system")
  return move.stop()
end
return M
