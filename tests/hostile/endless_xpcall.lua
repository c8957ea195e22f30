-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  while true do
    xpcall(function() while true do end end, function(e) return e end)
  end
end
return M
