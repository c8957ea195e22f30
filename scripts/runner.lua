-- A runner that goes straight to params.goal and stops there: a prey moving in a straight line.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.to(self.params.goal)
end

return M
