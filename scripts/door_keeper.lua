-- A door keeper (scenes/door.yaml): opens the door (world:set_tile, applied at the end of
-- the tick) when `who` comes within `near` tiles of it, and shuts it once `who` is 3 tiles
-- away. It counts the openings in its label.
local M = {}

function M.init(self)
  self.memory.opened = 0
  self:label("opened 0")
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local door = self.params.door
  local who = world:agent(self.params.who)
  local dx, dy = who.pos.x - door[1], who.pos.y - door[2]
  local d = math.sqrt(dx * dx + dy * dy)
  local shut = world:blocked(door)
  if shut and d <= self.params.near then
    world:set_tile(door, "floor")
    self.memory.opened = self.memory.opened + 1
    self:label("opened " .. self.memory.opened)
  elseif not shut and d >= 2.5 then
    world:set_tile(door, "door")
  end
  return move.stop()
end

return M
