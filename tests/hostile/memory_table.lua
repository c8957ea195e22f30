-- expect: memory limit exceeded
local M = {}
function M.decide(self, world)
  self.memory.hoard = {}
  local i = 0
  while true do
    i = i + 1
    self.memory.hoard[i] = string.rep("0123456789abcdef", 65536) .. i
  end
end
return M
