-- A thief (scenes/footsteps.yaml): paces between two tiles, walking at 40% of its speed, and
-- from tick `run_at` running at full speed. Every 10 ticks its feet make a noise: `walk` tiles
-- loud while walking, `run` while running.
local M = {}

function M.init(self)
  self.memory.leg = 1
  self:label("walking")
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local running = world:tick() >= self.params.run_at
  if running then
    self:label("running")
  end
  if world:tick() % 10 == 0 then
    world:noise(running and self.params.run or self.params.walk, { kind = "footsteps" })
  end
  local goal = self.params.ends[self.memory.leg]
  if math.abs(self.pos.x - goal[1]) < 0.1 and math.abs(self.pos.y - goal[2]) < 0.1 then
    self.memory.leg = 3 - self.memory.leg
    goal = self.params.ends[self.memory.leg]
  end
  return move.blend({ { move.to(goal), running and 1 or 0.4 } })
end

return M
