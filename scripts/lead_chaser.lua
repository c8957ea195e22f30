-- A chaser with a tunable lead: it runs at where its prey will be `params.lead` seconds from
-- now, if the prey keeps its velocity (0: the plain chaser; more: closer to the interceptor).
-- It plots its distance to the prey, so the plots panel (Tab) and `--monitors` can chart it.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil then return move.stop() end
  local dx, dy = prey.pos.x - self.pos.x, prey.pos.y - self.pos.y
  plot("gap", math.sqrt(dx * dx + dy * dy))
  plot("hunters", 1)
  local lead = self.params.lead
  return move.chase({ prey.pos.x + prey.vel.x * lead, prey.pos.y + prey.vel.y * lead })
end

return M
