-- A leader that walks a loop of points (params.points), planning each leg with A*.
local M = {}

function M.init(self)
  self.memory.leg = 1
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local points = self.params.points
  local goal = points[self.memory.leg]
  if self.tile.x == goal[1] and self.tile.y == goal[2] then
    self.memory.leg = self.memory.leg % #points + 1
    goal = points[self.memory.leg]
  end
  return move.path_to(goal, self.params.smooth and { smooth = true } or nil)
end

return M
