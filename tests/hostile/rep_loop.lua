-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  while true do
    local s = string.rep("ab", 1e6)
  end
end
return M
