-- expect: builtins changed only here
-- Overwrites builtins in its own sandbox; the well-behaved agent's copies are untouched
-- (it calls string.format, math.floor, table.concat, nav.los and move.to every tick).
string.format = nil
math.floor = nil
table.concat = nil
move.to = nil
nav.los = nil
local M = {}
function M.decide(self, world)
  error("builtins changed only here", 0)
end
return M
