-- expect: error_nil.lua:4: error: error thrown with nil instead of a message
local M = {}
function M.decide(self, world)
  error()
end
return M
