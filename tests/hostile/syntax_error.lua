-- expect: syntax_error.lua:5: error: unexpected symbol
local M = {}
function M.decide(self, world)
  return move.stop(
end
return M
