-- expect: charge_colliding_integer_keys.lua:11: error: instruction budget exceeded
-- Integer keys that are multiples of the hash part's odd modulus all hash into one chain, so
-- every insert and lookup walks it: quadratic work, a few units a pass. A lookup now pays for
-- the nodes of a chain it visits.
local M = {}
function M.decide(self, world)
  local t = {}
  -- 2^17 slots: integers hash by `i % (2^17 - 1)`.
  for i = 1, 100000 do t[-i] = true end
  local m = 2 ^ 17 - 1
  for i = 1, 1e9 do t[i * m] = i end
  return move.stop()
end
return M
