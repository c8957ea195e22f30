-- The evader: wanders between random free tiles while calm, and runs straight away from the
-- nearest threat once it comes within its sensing radius (`sense:` in the scene). Cornered
-- (it cannot get further away), it dashes for a random free tile instead. Random picks come
-- from the scene's seed, so a run is the same every time.
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

local function at(tile, goal)
  return goal.x == tile.x and goal.y == tile.y
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local now = world:time()
  if self.memory.dash_until and now < self.memory.dash_until and self.memory.goal then
    return move.path_to(self.memory.goal)
  end
  local threat = world:nearest(self, self.params.flee_from)
  local panic = self.sense or 5
  if threat ~= nil then
    local dx, dy = self.pos.x - threat.pos.x, self.pos.y - threat.pos.y
    if dx * dx + dy * dy < panic * panic then
      local moving = self.vel.x * self.vel.x + self.vel.y * self.vel.y
      if self.action == "evade" and moving < 0.25 then
        -- Pinned against a wall: break out past the threat.
        self.memory.goal = random_free_tile(world)
        self.memory.dash_until = now + 1.5
        if self.memory.goal then
          return move.path_to(self.memory.goal)
        end
      end
      self.memory.goal = nil
      return move.evade(threat)
    end
  end
  local goal = self.memory.goal
  if goal == nil or at(self.tile, goal) then
    goal = random_free_tile(world)
    self.memory.goal = goal
  end
  if goal == nil then
    return move.stop()
  end
  return move.path_to(goal)
end

return M
