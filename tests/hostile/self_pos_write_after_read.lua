-- expect: self_pos_write_after_read.lua:6: error: cannot set `pos` on self: agents' fields belong to the engine and are read-only; keep your own data in self.memory
-- Reading `self.pos` puts it on `self`; a write after the read is refused as one before it.
local M = {}
function M.decide(self, world)
  local x = self.pos.x
  self.pos = { x = x + 5, y = 1 }
  return move.stop()
end
return M
