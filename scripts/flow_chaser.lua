-- A walker of scenes/flow_crowd_chase.yaml: runs straight at the flag (move.chase), the peer
-- of scripts/flow_walker.lua's flow field.
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local flag = world:agent("flag")
  if flag == nil then return move.stop() end
  return move.chase(flag)
end

return M
