-- expect: charge_sparse_next.lua:10: error: instruction budget exceeded
-- Beyond the issue's list: `next` from the start of a table whose first 150k slots are
-- empty goes over all of them in C, every call. The slots a traversal goes over are paid.
local M = {}
function M.decide(self, world)
  local t = {}
  for i = 1, 150000 do t[i] = i end
  for i = 1, 150000 - 1 do t[i] = nil end
  local n = 0
  for i = 1, 1e9 do if next(t) then n = n + 1 end end
  return move.stop()
end
return M
