-- expect: charge_format_literal.lua:7: error: instruction budget exceeded
-- `string.format` copies its format's literal text a byte at a time; a long literal cost
-- nothing but the call. The format string is read, and so paid, by size.
local M = {}
function M.decide(self, world)
  local form = string.rep("x", 8 * 1024 * 1024) .. "%d"
  for i = 1, 1e9 do local s = string.format(form, i) end
  return move.stop()
end
return M
