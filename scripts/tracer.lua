-- Tracing around obstacles (AI for Game Developers, ch. 6): head straight for the goal and, when
-- blocked, keep the left hand on the obstacle's outline. params.variant picks when tracing stops:
--   "basic"    as soon as the straight step is free again (loops in a concave range),
--   "improved" on crossing the line from where tracing started to the goal,
--   "sight"    as soon as the goal is in line of sight.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local goal = world:agent(self.params.goal)
  if goal == nil then return move.stop() end
  return move.trace_around(goal, { variant = self.params.variant })
end

return M
