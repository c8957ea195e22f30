-- expect: endless_loop.lua:4: instruction budget exceeded
local M = {}
function M.decide(self, world)
  while true do
  end
end
return M
