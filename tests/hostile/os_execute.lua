-- expect: attempt to call a nil value (field 'execute')
local M = {}
function M.decide(self, world)
  os.execute("touch /tmp/agentbox-pwned")
  return move.stop()
end
return M
