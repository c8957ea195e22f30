-- A hive (scenes/hive.yaml): every `every` ticks it spawns a drone at its door, up to
-- `drones`, each sent to the next flower; it counts the drones that report home.
local M = {}

function M.init(self)
  self.memory.sent, self.memory.home = 0, 0
  self:label("home 0")
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local mem = self.memory
  for _, letter in ipairs(self:inbox()) do
    if type(letter.msg) == "table" and letter.msg.home then
      mem.home = mem.home + 1
      self:label("home " .. mem.home)
    end
  end
  if mem.sent < self.params.drones and world:tick() % self.params.every == 0 then
    mem.sent = mem.sent + 1
    local flower = self.params.flowers[mem.sent]
    -- The new drone appears at the next tick, made like drone-1 with these params.
    world:spawn({ kind = "drone", at = self.params.door, params = { flower = flower } })
  end
  return move.stop()
end

return M
