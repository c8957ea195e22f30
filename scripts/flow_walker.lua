-- A walker of scenes/flow_crowd.yaml: walks the shared flow field to the flag. The only
-- difference from scripts/flow_chaser.lua is the primitive.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local flag = world:agent("flag")
  if flag == nil then return move.stop() end
  return move.flow_to(flag)
end

return M
