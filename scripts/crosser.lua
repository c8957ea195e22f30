-- Walks to the far end of its row (x = params.goal_x), arriving on the point. Avoidance is
-- not in the script: the scene's `avoid: true` keeps the walkers apart (ORCA).
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  self.memory.row = self.memory.row or self.tile.y
  return move.arrive({ self.params.goal_x, self.memory.row }, { slow = 1.5 })
end

return M
