-- A walker of scenes/crowd_paths.yaml: every 30 ticks (staggered) it picks a random free tile
-- within 16 and asks nav.path for the way there; it walks straight at the goal (the map is
-- open), so the only difference from scripts/crowd_paths_nocall.lua is the query.
local M = {}
local random, to = math.random, move.to

-- Staggered: each walker plans at its own tick of every 30, drawn from its seeded stream.
function M.init(self)
  self.memory.phase = random(0, 29)
end

-- A random free tile within 16 tiles of `tile` in each direction (the walker's own tile if
-- eight draws find none).
local function pick(tile, world)
  for _ = 1, 8 do
    local x, y = tile.x + random(-16, 16), tile.y + random(-16, 16)
    if not world:blocked(x, y) then
      return x, y
    end
  end
  return tile.x, tile.y
end

---@param self agentbox.Self
---@param world agentbox.World
function M.decide(self, world)
  local m = self.memory
  if m.goal == nil or (world:tick() + m.phase) % 30 == 0 then
    local x, y = pick(self.tile, world)
    m.goal = { x, y }
    -- The query being measured: its path is kept (its length, so the result is used).
    local path, info = nav.path(self.tile, m.goal)
    m.steps = path and #path or info.reason
  end
  return to(m.goal)
end

return M
