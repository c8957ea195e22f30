-- A patrol (scenes/door.yaml): walks its route of tiles with A*, round and round. While the
-- door is shut its next leg has no path, and it waits where it stands.
local M = {}

function M.init(self)
  self.memory.leg = 1
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local route = self.params.route
  local goal = route[self.memory.leg]
  if self.tile.x == goal[1] and self.tile.y == goal[2] then
    self.memory.leg = self.memory.leg % #route + 1
    goal = route[self.memory.leg]
  end
  return move.path_to(goal)
end

return M
