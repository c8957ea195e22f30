-- expect: charge_concat_separator.lua:8: error: instruction budget exceeded
-- `table.concat` charged per element, not per byte: an 8 MB separator between two short
-- strings copied 8 MB a pass. The buffer a C function builds is paid by size as it grows.
local M = {}
function M.decide(self, world)
  local sep = string.rep(",", 8 * 1024 * 1024)
  local parts = { "a", "b" }
  for i = 1, 1e9 do local s = table.concat(parts, sep) end
  return move.stop()
end
return M
