-- expect: stack overflow
local M = {}
local function deeper(n) return 1 + deeper(n + 1) end
function M.decide(self, world)
  deeper(1)
  return move.stop()
end
return M
