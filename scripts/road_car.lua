-- A car on a road (seeds 000 and 003, path following): no destination, it looks at the 8
-- tiles around it, scores road 10 and anything else 0, adds +2 for going on the same way, +1
-- for the two ways beside it and -1 for turning back, and drives one tile the best way.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.follow_road { terrain = self.params.road or "road" }
end

return M
