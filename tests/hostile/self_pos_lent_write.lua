-- expect: self_pos_lent_write.lua:8: error: cannot change an agent's pos: it is read-only
local M = {}
function M.decide(self, world)
  -- From its second decision on, its own `pos` is lent to it while it decides (read without
  -- a call): still read-only, by assignment as by rawset (self_pos_lent_rawset.lua).
  local pos = self.pos
  local _ = pos.x + pos.y
  pos.x = 5
  return move.stop()
end
return M
