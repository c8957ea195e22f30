-- expect: format_address.lua:10: error: stable table: #1 #2 [   #2] [#1  ] (null)
local M = {}
-- Made once: the agent numbers them the first time it names them, the same every tick.
local a, b = {}, {}
function M.decide(self, world)
  -- Object numbers, not addresses, and `%p` writes them as `tostring` does: the same text in
  -- every run, and nothing that looks like an address (`0x3`). Width and `-` still apply; a
  -- value with no object (nil) is `(null)`.
  local first = tostring(a)
  error(("stable %s %p [%5p] [%-4p] %p"):format(first, b, b, a, nil))
end
return M
