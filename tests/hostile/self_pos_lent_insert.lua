-- expect: self_pos_lent_insert.lua:9: error: cannot change an agent's pos: it is read-only
local M = {}
function M.decide(self, world)
  -- Its own `pos`, lent to it while it decides from its second decision on, holds its numbers
  -- as fields of a read-only table: a write through the C API (table.insert's lua_seti) is
  -- refused as assignment is (self_pos_lent_write.lua), and so is one to `y`, a field it holds.
  local pos = self.pos
  local _ = pos.x + pos.y
  if not pcall(table.insert, pos, 5) then pos.y = 1 end
  return move.stop()
end
return M
