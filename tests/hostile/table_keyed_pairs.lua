-- expect: table_keyed_pairs.lua:27: error: order 8111 25465313 4213,4214,4215
-- Tables, functions, coroutines, path tiles and agent views as keys: `pairs` visits them in
-- the same order in every run (they are hashed by an id, not an address). Library functions
-- (C functions) are hashed by their place in the program, the same in every run of one build.
local M = {}
local t = {}
local n = 0
local function add(k)
  n = n + 1
  t[k] = n
end
function M.decide(self, world)
  for i = 1, 30 do
    add({})
    add(function() return i end)
    add(coroutine.create(function() end))
  end
  add(self)
  for _, tile in ipairs(nav.path(self.pos, { x = 8, y = 3 }) or {}) do add(tile) end
  for _, other in ipairs(world:agents()) do add(other) end
  if world:tick() < 3 then return move.stop() end
  local seen = {}
  for _, v in pairs(t) do seen[#seen + 1] = v end
  -- The order, folded, is what the error shows: the same in every run.
  local h = 0
  for i, v in ipairs(seen) do h = (h * 31 + v * i) % 1000000007 end
  error("order " .. #seen .. " " .. h .. " " .. table.concat(seen, ",", 1, 12))
end
return M
