-- expect: rawset_view.lua:4: error: cannot change another agent's view: it is read-only; keep your own data in self.memory
local M = {}
function M.decide(self, world)
  rawset(world:agent("walker"), "kind", "prey")
  return move.stop()
end
return M
