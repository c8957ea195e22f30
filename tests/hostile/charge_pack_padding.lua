-- expect: charge_pack_padding.lua:6: error: instruction budget exceeded
-- `string.pack("c4000000", "")` pads 4 MB a byte at a time from a 8-byte format and an empty
-- string: nothing it reads is long, but the buffer it builds is, and that is paid as it grows.
local M = {}
function M.decide(self, world)
  for i = 1, 1e9 do local s = string.pack("c4000000", "") end
  return move.stop()
end
return M
