-- expect: world metatable: nil
local M = {}
function M.decide(self, world)
  local mt = getmetatable(world)
  if mt then mt.__index = nil end
  error("world metatable: " .. tostring(mt), 0)
end
return M
