-- expect: close_looping.lua:10: error: instruction budget exceeded
local M = {}
function M.decide(self, world)
  local co = coroutine.create(function()
    local x <close> = setmetatable({}, { __close = function() while true do end end })
    coroutine.yield()
  end)
  coroutine.resume(co)
  coroutine.close(co)
  return move.stop()
end
return M
