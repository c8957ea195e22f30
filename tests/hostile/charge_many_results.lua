-- expect: charge_many_results.lua:5: error: instruction budget exceeded
-- Beyond the issue's list: a function that returns its 200k arguments (`return ...`) copies
-- them at each call; the `...` it reads is paid per value, wherever the values go.
local M = {}
local function id(...) return ... end
function M.decide(self, world)
  local t = {}
  for i = 1, 200000 do t[i] = i end
  local function again(...) for i = 1, 1e9 do local n = select("#", id(...)) end end
  again(table.unpack(t))
  return move.stop()
end
return M
