-- expect: xpcall_looping_handler.lua:5: error: instruction budget exceeded
local M = {}
function M.decide(self, world)
  xpcall(function() error("x") end, function(m) while true do end end)
  return move.stop()
end
return M
