-- expect: decide must return an action
-- Found by fuzz_snippets (a 30 s time limit on a loaded machine; 0.45 s of CPU for 20 ticks
-- alone): a lazy capture and a back-reference over 100,000 characters, every tick.
local M = {}
function M.decide(self, world)
  local v1 = string.match(string.rep('a', 1e5), '(.-)%1$')
  return 42
end
return M
