-- A troll exploring rooms by wall tracing (AI for Game Developers, ch. 6): relative to the way it
-- faces it tries to turn left, go straight, turn right, turn back, and takes the first free way, so
-- its left hand never leaves the wall. params.hand: "left" (the book) or "right".
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.wall_trace { hand = self.params.hand or "left" }
end

return M
