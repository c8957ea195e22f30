-- expect: instruction budget exceeded
-- A memory bomb behind pcall: memory errors are caught, but the loop then runs out of budget.
local M = {}
function M.decide(self, world)
  while true do
    pcall(function() local t = {} for i = 1, 1e12 do t[i] = i end end)
  end
end
return M
