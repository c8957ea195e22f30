-- expect: charge_string_coercion.lua:8: error: instruction budget exceeded
-- Beyond the issue's list: arithmetic on a 16 MB numeric string converts it in C each time
-- (`l_strton`, no library function involved). A string read as a number is paid by size.
local M = {}
function M.decide(self, world)
  local s = "1"
  while #s < 16e6 do s = s .. s end
  for i = 1, 1e9 do local n = s + 0 end
  return move.stop()
end
return M
