-- expect: charge_format_q.lua:6: error: instruction budget exceeded
-- `%q` quotes a string byte by byte (`addquoted`); the string and the buffer are paid by size.
local M = {}
function M.decide(self, world)
  local s = string.rep("\0\n\"", 2 * 1024 * 1024)
  for i = 1, 1e9 do local q = string.format("%q", s) end
  return move.stop()
end
return M
