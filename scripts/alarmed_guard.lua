-- A guard (scenes/alarm.yaml) that waits until a message in its inbox says where an intruder
-- was seen, then runs there with A* and follows it once it sees it.
local M = {}

function M.init(self)
  self:label("idle")
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  for _, letter in ipairs(self:inbox()) do
    if type(letter.msg) == "table" and letter.msg.alarm then
      self.memory.seen = letter.msg.seen
      self:label("alerted")
    end
  end
  local seen = self.memory.seen
  if not seen then
    return move.stop()
  end
  local intruder = world:agent("intruder")
  if intruder and nav.sees(self, intruder) then
    return move.chase(intruder)
  end
  return move.path_to(seen)
end

return M
