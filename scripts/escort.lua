-- A member of an escort: holds its place in the leader's frame (params.offset: x tiles ahead
-- of the leader, y to its right), so the formation turns with the leader. `avoid: true` in the
-- scene keeps the escorts off each other and off the leader while they re-form after a turn.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.follow(self.params.leader, { offset = self.params.offset })
end

return M
