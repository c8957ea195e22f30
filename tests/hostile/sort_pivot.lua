-- expect: sort_pivot.lua:29: error: sorted 405336528 invalid 369852336 949981983
-- table.sort on equal keys and with a comparator that is no order: where a lopsided partition
-- made Lua pick its next pivot from the clock, the result (or whether sort raised "invalid
-- order function") differed between runs. The pivot is now a fixed choice.
local M = {}
local function digest(t)
  local h = 0
  for i = 1, #t do h = (h * 31 + t[i].id) % 1000000007 end
  return h
end
function M.decide(self, world)
  local results = {}
  for round = 1, 6 do
    local t = {}
    for i = 1, 400 do t[i] = { id = i, key = (i * round) % 7 } end
    -- Equal keys: many orders are sorted; which one comes out depends on the pivots.
    table.sort(t, function(a, b) return a.key < b.key end)
    results[#results + 1] = digest(t)
    -- No order at all.
    local ok = pcall(table.sort, t, function(a, b) return (a.id * 7 + b.id * round) % 5 < 2 end)
    results[#results + 1] = (ok and digest(t) or "invalid")
    -- The largest keys where the first pivot is chosen from (first, middle, last): the
    -- partition is lopsided, and the next pivots were picked from the clock.
    for i = 1, 400 do t[i] = { id = i, key = (i * round) % 5 } end
    t[1].key, t[200].key, t[400].key = 100, 100, 100
    table.sort(t, function(a, b) return a.key < b.key end)
    results[#results + 1] = digest(t)
  end
  if world:tick() >= 2 then error("sorted " .. table.concat(results, " ")) end
  return move.stop()
end
return M
