-- expect: fuzz_colliding_keys_resize.lua:9: error: instruction budget exceeded
-- Found by fuzz_snippets (issue 36, through the CPU-time net): 100k integer keys that all hash
-- into one chain once the table has 2^17 slots. Growing to that size re-inserted each old key
-- by looking it up first, and each lookup walked the chain: 5 s inside one resize, where no
-- charge can stop it. A resize now inserts without looking up (the keys are distinct).
local M = {}
function M.decide(self, world)
  local t, m = {}, 2 ^ 17 - 1
  for i = 1, 1e5 do t[i * m] = i end
  return move.stop()
end
return M
