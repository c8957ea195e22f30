-- expect: escaped: nil nil nil
-- A loaded chunk runs in the script's sandbox: no io, os.execute or debug there either.
local M = {}
function M.decide(self, world)
  local f = load("return io, os.execute, debug")
  local a, b, c = f()
  error("escaped: " .. tostring(a) .. " " .. tostring(b) .. " " .. tostring(c), 0)
end
return M
