-- The troll of the breadcrumb demo (AI for Game Developers, ch. 6): it wanders at random until it
-- finds one of the player's crumbs on or next to its tile, then follows the trail, newest crumb
-- first.
-- params.leader: whose crumbs to follow; params.trail: how many crumbs it scans (15 in the book).
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  return move.follow_crumbs(self.params.leader, { trail = self.params.trail or 15 })
end

return M
