-- A crowd walker: one neighbour query and one movement primitive per tick. It keeps
-- params.space tiles from its nearest fellow walker: closer than that it steps away, further
-- than that it closes in, so the crowd churns without clumping. `agentbox bench` compares it
-- with the same behaviour written in Rust (crates/agentbox-session/src/bench.rs, NativeCrowd).
--
-- Written the way hot Lua is written: a global or a field read is a table lookup, so the
-- movement primitives are read once into locals, and the distance comes with the query
-- instead of being worked out from two positions.
local M = {}
local chase, evade, stop = move.chase, move.evade, move.stop

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local other, distance = world:nearest(self, self.kind)
  if not other then
    return stop()
  end
  if distance < self.params.space then
    return evade(other)
  end
  return chase(other)
end

return M
