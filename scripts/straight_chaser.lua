-- The straight chaser: always runs straight at its target and never plans. In a maze it
-- presses against the first wall between them: the reason A* exists.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.chase(self.params.target)
end

return M
