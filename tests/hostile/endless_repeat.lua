-- expect: endless_repeat.lua:6: error: instruction budget exceeded
-- A `repeat ... until` loop jumps back on its condition (a test and a jump run together), not
-- on a plain jump: found by the snippet fuzzer, it ran forever and hung the scene.
local M = {}
function M.decide(self, world)
  repeat local x = 1 until false
  return move.stop()
end
return M
