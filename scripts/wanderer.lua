-- Random-movement obstacle avoidance (AI for Game Developers, ch. 6): step straight at the goal
-- while it is in line of sight, in a random direction otherwise. The randomness comes from the
-- scene seed.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.wander_avoid(self.params.goal)
end

return M
