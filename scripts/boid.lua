-- A boid (Reynolds 1987/1999): separation, alignment and cohesion with the flock, a smooth
-- wander and wall avoidance, blended by weight. The weights are the scene's params (tunables:
-- drag them in the window's tunables panel, or sweep them).
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local p = self.params
  return move.blend {
    { move.separate { radius = p.space, kind = self.kind }, p.separate },
    { move.align { radius = p.sight, kind = self.kind }, p.align },
    { move.cohere { radius = p.sight, kind = self.kind }, p.cohere },
    { move.wander { rate = 4, strength = 0.8 }, p.wander },
    { move.avoid_walls { ahead = 2.5 }, p.walls },
  }
end

return M
