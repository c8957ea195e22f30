-- expect: self:label: a label is at most 32 bytes, got 16777216
-- The label's length is checked before it is copied: a thousand refusals cost nothing.
local M = {}
function M.decide(self, world)
  local big = string.rep("x", 16 * 1024 * 1024)
  for _ = 1, 1000 do
    pcall(self.label, self, big)
  end
  self:label(big)
end
return M
