-- expect: string metatable: nil
-- The shared string metatable is out of reach, so string methods keep working for everyone.
local M = {}
function M.decide(self, world)
  local mt = getmetatable("")
  if mt then mt.__index = {} end
  error("string metatable: " .. tostring(mt), 0)
end
return M
