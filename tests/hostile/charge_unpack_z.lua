-- expect: charge_unpack_z.lua:8: error: instruction budget exceeded
-- Beyond the issue's list: `string.unpack("z", s)` looks for a zero through all 16 MB of a
-- string that has none. Nobody charged `unpack`; the string it reads is paid by size.
local M = {}
function M.decide(self, world)
  local s = "x"
  while #s < 16e6 do s = s .. s end
  for i = 1, 1e9 do pcall(string.unpack, "z", s) end
  return move.stop()
end
return M
