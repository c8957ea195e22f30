-- expect: endless_in_load.lua:3: error: instruction budget exceeded
local M = {}
while true do end
function M.decide(self, world) return move.stop() end
return M
