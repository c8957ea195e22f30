-- expect: world_method_write.lua:5: error: world is read-only
local M = {}
function M.decide(self, world)
  -- `nearest` is one of world's own fields: the write must still be refused.
  world.nearest = function() return nil end
  return move.stop()
end
return M
