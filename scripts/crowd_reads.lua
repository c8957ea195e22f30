-- The crowd walker of scripts/crowd.lua that also reads what a designer's script usually reads
-- every tick: the tick, its own position, its params and its memory, and counts in memory.
-- scenes/crowd_reads.yaml measures it against the plain walker on the same map
-- (scenes/crowd_5k.yaml): `agentbox bench scenes/crowd_reads.yaml --against scenes/crowd_5k.yaml`.
--
-- Each decision counts itself in memory and keeps the tick and where the agent stood.
local M = {}
local chase, evade, stop = move.chase, move.evade, move.stop

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local memory, pos = self.memory, self.pos
  memory.decisions = (memory.decisions or 0) + 1
  memory.tick, memory.x, memory.y = world:tick(), pos.x, pos.y
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
