-- A crowd walker: one neighbour query and one movement primitive per tick. It keeps
-- params.space tiles from its nearest fellow walker: closer than that it steps away, further
-- than that it closes in, so the crowd churns without clumping. `agentbox bench` compares it
-- with the same behaviour written in Rust (src/bench.rs, NativeCrowd).
local M = {}

function M.decide(self, world)
  local other = world:nearest(self, self.kind)
  if other == nil then
    return move.stop()
  end
  local dx, dy = other.pos.x - self.pos.x, other.pos.y - self.pos.y
  local space = self.params.space
  if dx * dx + dy * dy < space * space then
    return move.evade(other)
  end
  return move.chase(other)
end

return M
