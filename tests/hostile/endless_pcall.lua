-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  while true do
    pcall(function() while true do end end)
  end
end
return M
