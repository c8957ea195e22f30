-- expect: instruction budget exceeded
local M = {}
function M.decide(self, world)
  local co = coroutine.create(function() while true do end end)
  while true do
    coroutine.resume(co)
  end
end
return M
