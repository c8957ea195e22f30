-- A lurker: an intruder that stays where it starts, hiding (for scenes/guard_corner.yaml,
-- where `agentbox hunt` looks for the hiding place the guard's patrol never sees).
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.stop()
end

return M
