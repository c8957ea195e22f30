-- expect: instruction budget exceeded
-- The coroutine is created before the call runs long, then loops forever inside.
local M = {}
local co = coroutine.create(function() while true do local x = 1 end end)
function M.decide(self, world)
  while true do
    local ok = coroutine.resume(co)
  end
end
return M
