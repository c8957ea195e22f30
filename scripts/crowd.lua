-- A crowd walker: one neighbour query and one movement primitive per tick. It keeps
-- params.space tiles from its nearest fellow walker: closer than that it steps away, further
-- than that it closes in, so the crowd churns without clumping. `agentbox bench` compares it
-- with the same behaviour written in Rust (src/bench.rs, NativeCrowd).
--
-- Written the way hot Lua is written: a global or a field read is a table lookup, so the
-- movement primitives and the two positions are read once into locals.
local M = {}
local chase, evade, stop = move.chase, move.evade, move.stop

function M.decide(self, world)
  local other = world:nearest(self, self.kind)
  if not other then
    return stop()
  end
  local at, there = self.pos, other.pos
  local dx, dy = there.x - at.x, there.y - at.y
  local space = self.params.space
  if dx * dx + dy * dy < space * space then
    return evade(other)
  end
  return chase(other)
end

return M
