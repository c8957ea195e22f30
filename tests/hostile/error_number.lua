-- expect: error_number.lua:4: error: error thrown with a number instead of a message: 42
local M = {}
function M.decide(self, world)
  error(42)
end
return M
