-- expect: recursion_in_binding.lua:8: error: stack overflow
-- A binding reads a position through an __index that recurses until the Lua stack overflows.
-- Found by the snippet fuzzer: each such error cost 0.5 to 2 s a tick (the traceback walked
-- the 200000-deep call list once per level it looked up), so 20 ticks took 12 to 42 s. Now the
-- overflow spends the budget and the traceback walks the list once (vendor/lua-src/PATCHES.md).
local M = {}
function M.decide(self, world)
  local function deeper(n) return deeper(n + 1) + 1 end
  local target = setmetatable({}, { __index = function() return deeper(1) end })
  return move.chase(target)
end
return M
