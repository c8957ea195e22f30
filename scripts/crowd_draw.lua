-- scripts/crowd.lua plus one debug shape per walker and tick (`draw.circle`), for
-- scenes/crowd_draw.yaml: headless, drawing does nothing, and `agentbox bench
-- scenes/crowd_draw.yaml --against scenes/crowd_5k.yaml` measures what the call still costs.
-- In the window (V) each walker shows a ring round it.
local M = {}
local chase, evade, stop = move.chase, move.evade, move.stop
local circle = draw.circle

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  circle(self, 0.5)
  local other, distance = world:nearest(self, self.kind)
  if not other then
    return stop()
  end
  if distance < self.params.space then
    return evade(other)
  end
  return chase(other)
end

return M
