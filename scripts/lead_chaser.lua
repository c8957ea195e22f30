-- A chaser with tunables: it runs at where its prey will be `params.lead` seconds from now, if
-- the prey keeps its velocity (0: the plain chaser; more: closer to the interceptor). The lead
-- is at most `params.lead_cap` tiles long, the aim point stays `params.margin` tiles inside the
-- map, and within `params.close` tiles of the prey it runs straight at it.
-- It plots its distance to the prey, so the plots panel (Tab) and `--monitors` can chart it.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil then return move.stop() end
  local dx, dy = prey.pos.x - self.pos.x, prey.pos.y - self.pos.y
  local gap = math.sqrt(dx * dx + dy * dy)
  plot("gap", gap)
  plot("hunters", 1)
  local p = self.params
  if gap <= (p.close or 0) then return move.chase(prey) end
  local lead = p.lead or 0
  local ax, ay = prey.vel.x * lead, prey.vel.y * lead
  local length = math.sqrt(ax * ax + ay * ay)
  local cap = p.lead_cap or math.huge
  if length > cap then ax, ay = ax * cap / length, ay * cap / length end
  local margin = p.margin or 0
  local w, h = world:size()
  local x = math.min(math.max(prey.pos.x + ax, margin), w - margin)
  local y = math.min(math.max(prey.pos.y + ay, margin), h - margin)
  return move.chase({ x, y })
end

return M
