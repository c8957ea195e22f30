-- expect: self_pos_lent_rawset.lua:7: error: cannot change an agent's pos: it is read-only
local M = {}
function M.decide(self, world)
  -- Its own `pos`, lent to it while it decides from its second decision on.
  local pos = self.pos
  local _ = pos.x + pos.y
  rawset(pos, "x", 5)
  return move.stop()
end
return M
