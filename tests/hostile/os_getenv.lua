-- expect: attempt to call a nil value (field 'getenv')
local M = {}
function M.decide(self, world)
  return os.getenv("HOME")
end
return M
