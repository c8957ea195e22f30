-- expect: view_pos_write.lua:5: error: cannot change an agent's pos: it is read-only
local M = {}
function M.decide(self, world)
  -- Before, this moved what every script saw of the walker (and its own self.pos).
  world:agent("walker").pos.x = 99
  return move.stop()
end
return M
