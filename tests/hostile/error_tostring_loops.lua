-- expect: hostile.lua:4: error: error thrown with a table instead of a message
local M = {}
function M.decide(self, world)
  error(setmetatable({}, { __tostring = function() while true do end end }))
end
return M
