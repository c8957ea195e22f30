-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  local f = coroutine.wrap(function() while true do end end)
  pcall(f)
  return move.stop()
end
return M
