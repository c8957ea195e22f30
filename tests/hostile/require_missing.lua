-- expect: require_missing.lua:4: error: require: module "os_library" not found in the scripts folder: there is no file
local M = {}
function M.decide(self, world)
  require("os_library")
  return move.stop()
end
return M
