-- expect: decide must return an action such as move.stop(), got nil
local M = {}
function M.decide(self, world) end
return M
