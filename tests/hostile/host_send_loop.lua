-- expect: memory limit exceeded by queued effects the host keeps for it
-- Beyond the named classes: each queued message is on the sender's bill until the round's
-- queue is taken, so sending in a loop stops the sender before the host grows without bound.
local M = {}
function M.decide(self, world)
  for i = 1, 1000000 do
    world:send("walker", i)
  end
  return move.stop()
end
return M
