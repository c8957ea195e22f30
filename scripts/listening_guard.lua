-- A guard (scenes/footsteps.yaml) that listens: when it hears footsteps (self:heard()), it
-- walks with A* to where they were made.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  for _, noise in ipairs(self:heard()) do
    if noise.kind == "footsteps" then
      self.memory.heard_at = { noise.pos.x, noise.pos.y }
      self:label("heard")
    end
  end
  if self.memory.heard_at then
    return move.path_to(self.memory.heard_at)
  end
  return move.stop()
end

return M
