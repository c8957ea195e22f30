-- expect: not enough memory
-- Over its quota, each refused allocation ran a full collection over everything the agent
-- holds (here 300k tables) before saying no, so a `pcall` loop of refusals froze the scene.
-- A collection now runs again only once more memory is in use than after the last, and is paid.
local M = {}
function M.decide(self, world)
  local mem = self.memory
  mem.t = mem.t or {}
  if #mem.t < 300000 then
    for i = 1, 50000 do mem.t[#mem.t + 1] = {} end
    return move.stop()
  end
  mem.s = mem.s or {}
  local ok, s = pcall(string.rep, "x", 4e6)
  if ok then mem.s[#mem.s + 1] = s; return move.stop() end
  local n = 0
  while true do if not pcall(string.rep, "x", 4e6) then n = n + 1 end end
end
return M
