-- The interceptor (AI for Game Developers, ch. 2): it aims where the prey will be, St = Sprey +
-- Vprey * tc with tc = |Sr| / |Vr|, so it can cut off a prey faster than itself.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil then return move.stop() end
  return move.intercept(prey)
end

return M
