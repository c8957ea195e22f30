-- expect: self_pos_write.lua:4: error: cannot set `pos` on self: agents' fields belong to the engine and are read-only; keep your own data in self.memory
local M = {}
function M.decide(self, world)
  self.pos = { x = 5, y = 1 }
  return move.stop()
end
return M
