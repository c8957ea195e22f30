-- expect: require: module "os_library" not found in the scripts folder
local M = {}
function M.decide(self, world)
  require("os_library")
  return move.stop()
end
return M
