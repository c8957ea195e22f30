-- The tank (docs/algorithms.md, "The tank"): drive a multi-tile body to the agent named by
-- params.goal. move.tank_to plans with the body's footprint (4 directions, cost 1 a step, Manhattan
-- estimate) and drives the route as turn-and-drive legs; with no route it stays put.
local M = {}

function M.init(self)
  self.memory.route_found = nil
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local goal = world:agent(self.params.goal)
  if goal == nil then return move.stop() end
  if self.memory.route_found == nil then
    -- Same search the tank runs, asked once to report whether a route exists.
    local path = nav.path(self.pos, goal.pos, {
      diagonal = "never", heuristic = "manhattan", size = 4,
      ignore_terrain = true, algorithm = "astar",
    })
    self.memory.route_found = path ~= nil
  end
  return move.tank_to(goal.pos)
end

return M
