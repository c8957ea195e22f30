-- The maze runner: follows an A* route to the tile named by params.goal.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.path_to(self.params.goal)
end

return M
