-- The minimal script of docs/scenes.md: chase the target when visible, else plan a route.
local M = {}

function M.init(self)                  -- optional, once per agent
  self.memory.decisions = 0
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)         -- required, every tick
  self.memory.decisions = self.memory.decisions + 1
  local flag = world:agent(self.params.target)
  if not flag then return move.stop() end  -- no agent has that id (any more)
  if nav.los(self.pos, flag.pos) then
    return move.chase(flag)            -- straight at it
  end
  return move.path_to(flag.pos)        -- an A* route round the bricks
end

function M.on_reload(self) end         -- optional, after a hot reload (memory kept)

return M
