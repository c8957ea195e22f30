-- expect: rawset_world.lua:4: error: cannot change world: it is read-only; keep your own data in self.memory
local M = {}
function M.decide(self, world)
  rawset(world, "agent", function() return nil end)
  return move.stop()
end
return M
