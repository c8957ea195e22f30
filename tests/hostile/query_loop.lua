-- expect: query_loop.lua:6: error: instruction budget exceeded
local M = {}
function M.decide(self, world)
  -- Each query is one call for the VM but real work in Rust: the bindings charge for it.
  while true do
    nav.path({ x = 1, y = 1 }, { x = 10, y = 3 })
  end
end
return M
