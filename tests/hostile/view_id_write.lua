-- expect: view_id_write.lua:5: error: cannot set `id` on another agent's view: agents' fields belong to the engine and are read-only
local M = {}
function M.decide(self, world)
  -- Before, every other script then saw the walker as "x".
  world:agent("walker").id = "x"
  return move.stop()
end
return M
