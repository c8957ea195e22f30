-- expect: rawset_spoofed_lock.lua:8: error: cannot change self: it is read-only; keep your own data in self.memory
local M = {}
function M.decide(self, world)
  -- A table of the script's own dressed as an agent's is still the script's to change.
  local mine = setmetatable({}, { __metatable = "agent (locked)" })
  rawset(mine, "kind", "prey")
  assert(rawget(mine, "kind") == "prey")
  rawset(self, "kind", "prey")
  return move.stop()
end
return M
