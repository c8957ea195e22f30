-- expect: weak_tables_gc.lua:47: error: survivors 2974/2974:304160866 469000036
-- Weak tables lose what the collector found dead, so what survives depends on when the
-- collector ran. The collector is driven by what is allocated, never by time or addresses,
-- and tables are hashed by id: the survivors are the same in every run.
local M = {}
local weak_values = setmetatable({}, { __mode = "v" })
local weak_keys = setmetatable({}, { __mode = "k" })
local kept = {}
local history = {}
-- A table keyed by tables, with keys coming and going: when it grows hung on how its keys
-- collided, which hung on their addresses, and so did the bytes allocated, so the collector's
-- timing.
local churn = {}
local churn_keys = {}
function M.decide(self, world)
  for i = 1, 200 do
    local k = {}
    churn[k] = i
    churn_keys[#churn_keys + 1] = k
    if #churn_keys > 150 then churn[table.remove(churn_keys, 1)] = nil end
  end
  for i = 1, 300 do
    local t = { i = i, s = string.rep("x", i % 40) }
    weak_values[#weak_values + 1] = t
    weak_keys[t] = i
    if i % 3 == 0 then kept[#kept + 1] = t end
  end
  while #kept > 500 do table.remove(kept, 1) end
  local alive, keys, h = 0, 0, 0
  for i, t in pairs(weak_values) do
    alive = alive + 1
    h = (h * 31 + i) % 1000000007
  end
  for t, i in pairs(weak_keys) do
    keys = keys + 1
    h = (h * 17 + i) % 1000000007
  end
  history[#history + 1] = alive .. "/" .. keys .. ":" .. h
  -- Where the hostile goes shows in the trace every tick.
  if world:tick() < 60 then
    return move.to({ x = 1 + alive % 9, y = 1 })
  end
  local all = 0
  for i, line in ipairs(history) do
    all = (all * 131 + #line + i) % 1000000007
  end
  error("survivors " .. history[#history] .. " " .. all)
end
return M
