-- expect: self:label: a label is at most 32 bytes, got 16777216
-- The label's length is checked before it is copied. (Reading the string is paid for, a
-- unit per 16 bytes, so a loop of such calls ends on the budget: one call here.)
local M = {}
function M.decide(self, world)
  local big = string.rep("x", 16 * 1024 * 1024)
  self:label(big)
end
return M
