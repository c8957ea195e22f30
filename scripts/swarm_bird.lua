-- A member of a Lennard-Jones swarm (AI for Game Developers, ch. 5, potential functions): every
-- other bird within range pulls (A / r^n) and pushes (B / r^m), so they settle r = m B / (n A)
-- apart; the leader pulls the flock along and the rocks push it away.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local p = self.params
  return move.swarm {
    kind = self.kind,
    A = p.A, B = p.B, n = p.n, m = p.m,
    target = p.leader, target_A = p.pull,
    obstacle = p.obstacle, range = p.range,
  }
end

return M
