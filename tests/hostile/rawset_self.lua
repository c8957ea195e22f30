-- expect: rawset_self.lua:6: error: cannot change self: it is read-only; keep your own data in self.memory
local M = {}
function M.decide(self, world)
  -- `self` is known as read-only by its locked metatable (the host lists no table for it),
  -- so `rawset` is refused as assignment is.
  rawset(self, "kind", "prey")
  return move.stop()
end
return M
