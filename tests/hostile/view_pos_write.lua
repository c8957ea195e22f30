-- expect: view_pos_write.lua:8: error: cannot set `pos` on another agent's view: agents' fields belong to the engine and are read-only
local M = {}
function M.decide(self, world)
  local walker = world:agent("walker")
  -- Before, reading `pos` kept it as a raw field of the view, and a raw field takes
  -- assignment without asking the metatable: every other script then saw this table.
  local _ = walker.pos.x
  walker.pos = { x = 99, y = 99 }
  return move.stop()
end
return M
