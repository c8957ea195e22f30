-- expect: printed
-- A line over the 4 KiB an agent may print in a tick is measured and dropped uncopied.
local M = {}
function M.decide(self, world)
  local big = string.rep("y", 16 * 1024 * 1024)
  for _ = 1, 1000 do
    print(big, big)
  end
  error("printed")
end
return M
