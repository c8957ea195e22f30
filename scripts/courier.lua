-- Travels between params.stops through the scene's waypoints (move.waypoints: the nearest
-- visible node, then the node table next[from][to], then the stop), one stop after another.
local M = {}

function M.init(self)
  self.memory.stop = 1
end

local function here(self, stop)
  return math.abs(self.pos.x - stop[1]) < 0.01 and math.abs(self.pos.y - stop[2]) < 0.01
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local stops = self.params.stops
  local stop = stops[self.memory.stop]
  if here(self, stop) then
    self.memory.stop = self.memory.stop % #stops + 1
    stop = stops[self.memory.stop]
  end
  return move.waypoints(stop)
end

return M
