-- A lookout (scenes/alarm.yaml): it stands watch; the first time it sees the intruder it
-- broadcasts where, to every guard within radio range, and calls the far guard by name.
-- params: target = the id to watch for, far = a guard out of radio range, radio = range in tiles.
local M = {}

function M.init(self)
  self:label("watching")
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local intruder = world:agent(self.params.target)
  if intruder and not self.memory.raised and nav.sees(self, intruder) then
    local seen = { x = intruder.pos.x, y = intruder.pos.y }
    -- Delivered at the next tick, to the guards within the radius only.
    world:broadcast({ alarm = true, seen = seen }, { radius = self.params.radio or 8, kind = "guard" })
    world:send(self.params.far, { alarm = true, seen = seen })
    self.memory.raised = true
    self:label("raised")
  end
  return move.stop()
end

return M
