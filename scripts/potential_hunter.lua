-- Potential-function chase and evade (AI for Game Developers, ch. 5): with A > 0 the target
-- attracts from afar and B keeps a little distance; with A = 0 only the B term is left and the
-- agent flees. Walls repel with the obstacle strength.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local p = self.params
  return move.potential {
    target = p.target, A = p.A, B = p.B, n = p.n, m = p.m,
    obstacle = p.obstacle, range = p.range,
  }
end

return M
