-- The plain chaser: runs straight at where its prey is now (line-of-sight chase in continuous
-- space). Against a faster prey it can only fall in behind it.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil then return move.stop() end
  return move.chase(prey)
end

return M
