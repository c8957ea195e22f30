-- expect: load_or_chain.lua:8: error: instruction budget exceeded
-- `load` of a long `x or x or ...` chain compiled in quadratic time in C (`luaK_concat`).
-- The compile pays for its tokens and for each step of the jump-list walk; once the budget is
-- spent, `load` fails and the next charge stops the call.
local M = {}
function M.decide(self, world)
  local src = "local x = false return " .. string.rep("x or ", 100000) .. "x"
  for i = 1, 1e9 do local f = load(src) end
  return move.stop()
end
return M
