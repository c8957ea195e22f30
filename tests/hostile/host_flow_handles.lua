-- expect: memory limit exceeded by nav.flow handles the host keeps for it
-- Each flow handle keeps its field alive after the cache drops it: the fields are on this
-- agent's bill, so hoarding handles is a memory stop of this agent, not of the host.
local M = {}
function M.decide(self, world)
  self.memory.fields = self.memory.fields or {}
  local fields = self.memory.fields
  for i = 1, 40000 do
    fields[#fields + 1] = nav.flow({ x = 1 + i % 10, y = 1 + i % 3 })
  end
  return move.stop()
end
return M
