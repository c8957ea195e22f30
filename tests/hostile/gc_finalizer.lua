-- expect: gc_finalizer.lua:5: error: setmetatable: __gc finalizers are not allowed in scripts
-- A finalizer could run at any allocation, outside the budget: refused.
local M = {}
function M.decide(self, world)
  self.memory.trap = setmetatable({}, { __gc = function() while true do end end })
  return move.stop()
end
return M
