-- expect: error_tostring_loops.lua:4: instruction budget exceeded
local M = {}
function M.decide(self, world)
  error(setmetatable({}, { __tostring = function() while true do end end }))
end
return M
