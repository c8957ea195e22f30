-- expect: error_table.lua:4: error: error thrown with a table instead of a message
local M = {}
function M.decide(self, world)
  error({ code = 42 })
end
return M
