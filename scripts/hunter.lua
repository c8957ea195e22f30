-- The hunter: runs straight at its prey while it can see it, and plans a route round the
-- obstacles with A* when it cannot. After a catch it rests two seconds to let the prey go.
-- Edit and save while the scene runs: the hunter switches to the new code on the next tick
-- and keeps self.memory.
local M = {}

function M.init(self)
  self.memory.catches = 0
  self.memory.rest_until = 0
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil or world:time() < self.memory.rest_until then
    return move.stop()
  end
  local dx, dy = prey.pos.x - self.pos.x, prey.pos.y - self.pos.y
  if dx * dx + dy * dy < 0.36 then
    self.memory.catches = self.memory.catches + 1
    self.memory.rest_until = world:time() + 2
    return move.stop()
  end
  if nav.los(self.pos, prey.pos) then
    return move.chase(prey)
  end
  return move.path_to(prey.pos)
end

function M.on_reload(self)
  print("hunter reloaded; catches so far: " .. self.memory.catches)
end

return M
