-- expect: agent_metatable.lua:10: error: cannot change a protected metatable
-- An agent's self and views have a locked metatable (it fills in their lazy fields): a script
-- cannot replace it, and the error names the script's line.
local M = {}
function M.decide(self, world)
  local mt = getmetatable(self)
  if mt ~= "agent (locked)" then
    error("self metatable: " .. tostring(mt), 0)
  end
  setmetatable(self, {})
  return move.stop()
end
return M
