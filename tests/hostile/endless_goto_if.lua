-- expect: endless_goto_if.lua:7: error: instruction budget exceeded
-- `if cond then goto back end` compiles to a conditional jump back, like `repeat ... until`.
local M = {}
function M.decide(self, world)
  local again = true
  ::top::
  if again then goto top end
  return move.stop()
end
return M
