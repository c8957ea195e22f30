-- The evader: wanders between random free tiles while calm, and runs straight away from the
-- nearest threat once it comes within its sensing radius (`sense:` in the scene). Random
-- picks come from the scene's seed, so a run is the same every time.
local M = {}

local function random_free_tile(world)
  local w, h = world:size()
  for _ = 1, 100 do
    local x, y = math.random(0, w - 1), math.random(0, h - 1)
    if not world:blocked(x, y) then
      return { x = x, y = y }
    end
  end
  return nil
end

function M.decide(self, world)
  local threat = world:nearest(self, self.params.flee_from)
  local panic = self.sense or 5
  if threat ~= nil then
    local dx, dy = self.pos.x - threat.pos.x, self.pos.y - threat.pos.y
    if dx * dx + dy * dy < panic * panic then
      self.memory.goal = nil
      return move.evade(threat)
    end
  end
  local goal = self.memory.goal
  if goal == nil or (goal.x == self.tile.x and goal.y == self.tile.y) then
    goal = random_free_tile(world)
    self.memory.goal = goal
  end
  if goal == nil then
    return move.stop()
  end
  return move.path_to(goal)
end

return M
