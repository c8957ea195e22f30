-- expect: nav.path: unknown option a table (options:
-- No message holds an address: a table where a name belongs is described, not printed.
local M = {}
function M.decide(self, world)
  local checks = {
    function() return nav.path({ x = 1, y = 1 }, { x = 10, y = 3 }, { [{}] = true }) end,
    function() return nav.flow({ x = 10, y = 3 }, { [print] = 1 }) end,
    function() return move.separate({ [coroutine.create(print)] = 1 }) end,
    function() return move.trace_around({ x = 10, y = 3 }, { variant = print }) end,
    function() return move.follow_road({ terrain = {} }) end,
    function() return world:agents({ kind = {} }) end,
    function() return world:send(self, {}, { [{}] = 1 }) end,
    function() return move.chase(setmetatable({}, {})) end,
    function() return world:spawn({ kind = self.kind, at = { x = 2, y = 2 }, [{}] = 1 }) end,
    function() return nav[{}] end,
    function() self[{}] = nil; self.pos = {} end,
    function() return move.swarm({ kind = {} }) end,
    function() return nav.path({ x = 1, y = 1 }, { x = 10, y = 3 }, { diagonal = {} }) end,
  }
  for _, check in ipairs(checks) do
    local ok, err = pcall(check)
    if not ok and tostring(err):find("0x") then
      error("an address leaked: " .. tostring(err), 0)
    end
  end
  nav.path({ x = 1, y = 1 }, { x = 10, y = 3 }, { [{}] = true })
end
return M
