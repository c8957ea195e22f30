-- A tile-stepping chaser (seeds 002/003). params.how picks the rule:
--   "los"   line-of-sight chase: walk the Bresenham line, rebuilt when the prey changes tile;
--   "basic" basic chase: each axis one tile towards the prey per step (a bent line).
local M = {}

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local prey = world:agent(self.params.prey)
  if prey == nil then return move.stop() end
  if self.params.how == "basic" then
    return move.basic_chase(prey)
  end
  return move.los_chase(prey)
end

return M
