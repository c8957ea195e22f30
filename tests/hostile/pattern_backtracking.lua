-- expect: pattern_backtracking.lua:4: error: instruction budget exceeded
local M = {}
function M.decide(self, world)
  string.find(string.rep("a", 300000), ".-.-.-.-.-b")
  return move.stop()
end
return M
