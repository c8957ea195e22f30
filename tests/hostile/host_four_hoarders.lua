-- expect: memory limit exceeded
-- Four agents (this one and three it spawns) fill one module-level list to the shared cap.
-- Stopping one frees little (the list is shared), so the host allocates at a full cap:
-- it has its reserve, and the process goes on.
local M = {}
local hoard
function M.decide(self, world)
  if self.id == "hostile" and world:tick() == 0 then
    for x = 2, 4 do
      world:spawn({ kind = self.kind, at = { x = x, y = 1 } })
    end
    return move.stop()
  end
  for i = 1, 200 do
    hoard = { next = hoard, string.rep("h", 65536) .. i }
  end
  return move.stop()
end
return M
