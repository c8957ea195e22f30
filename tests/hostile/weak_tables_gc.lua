-- expect: weak_tables_gc.lua:30: error: kept 18000 of 18000 values and 18000 of 18000 keys
-- A weak table in a script holds its entries like a plain table: every agent shares one
-- collector, so what a weak table lost would show how much the other agents allocated. Its
-- `__mode` set after `setmetatable` changes nothing either. Nothing here is kept elsewhere,
-- and the collector runs many times over the 60 ticks that make them: every entry is still
-- there.
local M = {}
local weak_values = setmetatable({}, { __mode = "v" })
local weak_keys = setmetatable({}, {})
getmetatable(weak_keys).__mode = "k"
local made = 0
function M.decide(self, world)
  for i = 1, made < 18000 and 300 or 0 do
    local t = { i = i, s = string.rep("x", i % 40) }
    made = made + 1
    weak_values[made] = t
    weak_keys[{ i }] = t
  end
  local values, keys = 0, 0
  for _ in pairs(weak_values) do
    values = values + 1
  end
  for _ in pairs(weak_keys) do
    keys = keys + 1
  end
  -- Where the hostile goes shows in the trace every tick.
  if made < 18000 then
    return move.to({ x = 1 + values % 9, y = 1 })
  end
  error(("kept %d of %d values and %d of %d keys"):format(values, made, keys, made))
end
return M
