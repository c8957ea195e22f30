-- Basic evade (seeds 002/003): each axis one unit away from the threat per step, once it comes
-- within params.panic tiles; until then it stands.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local threat = world:agent(self.params.threat)
  if threat == nil then return move.stop() end
  local dx, dy = threat.pos.x - self.pos.x, threat.pos.y - self.pos.y
  local panic = self.params.panic or 6
  if dx * dx + dy * dy > panic * panic then return move.stop() end
  return move.basic_evade(threat)
end

return M
