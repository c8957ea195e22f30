-- expect: instruction budget exceeded
local M = {}
function M.init(self)
  local n = 0
  while true do n = n + 1 end
end
function M.decide(self, world) return move.stop() end
return M
