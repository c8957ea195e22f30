-- expect: printed
-- A line over the 4 KiB an agent may print in a tick is measured and dropped uncopied.
-- (Reading the strings is paid for, a unit per 16 bytes, so a few prints here.)
local M = {}
function M.decide(self, world)
  local big = string.rep("y", 1024 * 1024)
  for _ = 1, 3 do
    print(big, big)
  end
  error("printed")
end
return M
