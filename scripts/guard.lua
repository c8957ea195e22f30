-- A guard (the README's tutorial): it patrols between waypoints, chases an intruder it sees,
-- searches the spot where it last saw it, and goes back to its patrol.
-- params: patrol = a list of tiles to walk round, target = the id of the agent to watch for,
--         search_time = seconds to look around the last seen spot (default 2).
local M = {}
-- Step 1: the state lives in self.memory, so it survives ticks and hot reloads.
function M.init(self)
  self.memory.state = "patrol"
  self.memory.leg = 1
  self:label("patrol")
end

-- Step 3: sight. An intruder is seen when it is within the guard's `sense` radius, inside its
-- view cone (FOV degrees, facing the way it walks) and nothing blocks the line between them.
local FOV = 180
local function sees(self, other)
  return nav.sees(self, other, { fov = FOV })
end
local function at(self, tile)
  return self.tile.x == tile[1] and self.tile.y == tile[2]
end

-- Step 2: patrol. Walk to the current waypoint with A*; on arrival, take the next one.
local function patrol(self)
  local points = self.params.patrol
  if at(self, points[self.memory.leg]) then
    self.memory.leg = self.memory.leg % #points + 1
  end
  return move.path_to(points[self.memory.leg])
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local mem = self.memory
  local intruder = world:agent(self.params.target)
  -- Step 6: show what it sees (V in the window; headless this does nothing).
  draw.cone(self, self.heading, FOV, self.sense or 8)

  -- Step 3: whatever it is doing, a guard that sees the intruder chases it and notes where.
  if intruder ~= nil and sees(self, intruder) then
    if mem.state ~= "chase" then
      print(self.id .. " spots " .. intruder.id .. " at tick " .. world:tick())
    end
    mem.state = "chase"
    self:label("chase")
    mem.last_seen = { intruder.tile.x, intruder.tile.y }
    return move.chase(intruder)
  end

  -- Step 4: out of sight. Go to the last seen spot, then look around for a while.
  if mem.state == "chase" then
    mem.state = "search"
    self:label("search")
    mem.search_until = nil
  end
  if mem.state == "search" then
    if not at(self, mem.last_seen) then
      draw.tile(mem.last_seen, "orange")
      return move.path_to(mem.last_seen)
    end
    mem.search_until = mem.search_until or world:time() + (self.params.search_time or 2)
    if world:time() < mem.search_until then
      return move.stop()
    end
    -- Step 5: nothing found. Back to the patrol, at the waypoint it was heading for.
    print(self.id .. " gives up the search at tick " .. world:tick())
    mem.state = "patrol"
    self:label("patrol")
  end
  return patrol(self)
end

return M
