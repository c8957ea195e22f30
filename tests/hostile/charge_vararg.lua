-- expect: charge_vararg.lua:6: error: instruction budget exceeded
-- Reading a 400k-value `...` copies every value (OP_VARARG); the copy is paid per value.
local M = {}
local function spin(...)
  local n = 0
  for i = 1, 1e9 do n = n + select("#", ...) end
  return n
end
function M.decide(self, world)
  local t = {}
  for i = 1, 400000 do t[i] = i end
  spin(table.unpack(t))
  return move.stop()
end
return M
