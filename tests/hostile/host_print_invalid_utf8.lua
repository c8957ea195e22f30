-- expect: printed
-- print writes any Lua string: invalid UTF-8 is replaced, never an error.
local M = {}
function M.decide(self, world)
  print("caf\xe9 \xff\xfe", "\x80")
  error("printed")
end
return M
