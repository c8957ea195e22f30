-- A drone (scenes/hive.yaml): flies to its flower, forages a moment, flies home, reports to
-- the hive and leaves the scene.
local M = {}

function M.init(self)
  self.memory.state = "out"
  self:label("out")
end

local function at(self, tile)
  return self.tile.x == tile[1] and self.tile.y == tile[2]
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local mem = self.memory
  if mem.state == "out" and at(self, self.params.flower) then
    mem.state, mem.until_tick = "forage", world:tick() + 15
    self:label("forage")
  elseif mem.state == "forage" and world:tick() >= mem.until_tick then
    mem.state = "back"
    self:label("back")
  elseif mem.state == "back" and at(self, self.params.home) then
    world:send(self.params.hive, { home = true })
    self:remove()
    return move.stop()
  end
  if mem.state == "out" then
    return move.path_to(self.params.flower)
  elseif mem.state == "back" then
    return move.path_to(self.params.home)
  end
  return move.stop()
end

return M
