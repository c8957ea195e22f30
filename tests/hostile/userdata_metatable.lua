-- expect: world metatable: world (locked)
-- The world's metatable is out of reach: getmetatable gives a name, not the table, and
-- setmetatable refuses to replace it.
local M = {}
function M.decide(self, world)
  local mt = getmetatable(world)
  if type(mt) == "table" then mt.__index = nil end
  local replaced = pcall(setmetatable, world, {})
  error("world metatable: " .. tostring(mt) .. (replaced and " (replaced!)" or " (locked)"), 0)
end
return M
