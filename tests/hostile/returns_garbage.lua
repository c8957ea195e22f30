-- expect: decide must return an action such as move.stop(), got table
local M = {}
function M.decide(self, world)
  return { kind = "chase", target = "walker" }
end
return M
