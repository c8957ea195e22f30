-- expect: memory limit exceeded
-- A weak cache that a script never empties holds its entries like any table (the collector
-- honours no script's `__mode`), so it grows until the memory limit stops its agent, as a
-- plain table would; its neighbour walks on.
local M = {}
local cache = setmetatable({}, { __mode = "kv" })
function M.decide(self, world)
  local i = 0
  while true do
    i = i + 1
    cache[{ i }] = string.rep("0123456789abcdef", 65536) .. i
  end
end
return M
