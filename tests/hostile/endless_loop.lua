-- expect: endless_loop.lua:4: error: instruction budget exceeded
local M = {}
function M.decide(self, world)
  while true do
  end
end
return M
