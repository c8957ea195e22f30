-- expect: world:agent("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... (1048576 bytes)) returned: no agent has that id
-- An error names a huge argument by a short quote and its length; nothing copies it whole.
-- Every read of the 1 MB string is paid for (a unit per 16 bytes), so each is tried once.
local M = {}
function M.decide(self, world)
  local big = string.rep("x", 1024 * 1024)
  pcall(world.send, world, big, 1)
  pcall(nav.path, self.pos, { x = 10, y = 3 }, { [big] = true })
  pcall(nav.path, self.pos, { x = 10, y = 3 }, { diagonal = big })
  pcall(draw.text, self.pos, big, big)
  pcall(world.spawn, world, { kind = big, at = { x = 2, y = 2 } })
  pcall(require, big)
  pcall(error, big)
  return move.chase(world:agent(big))
end
return M
