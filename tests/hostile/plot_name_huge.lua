-- expect: plot(name, value): a name is at most 64 bytes, got 1048576
-- run with: --monitors monitors.csv
-- Plots are collected (`--monitors`): a 1 MB series name, 10 times a tick, is measured
-- before it is copied and refused each time, so the host never holds a gigabyte of names (reading
-- it is paid for, a unit per 16 bytes, so a script cannot pass one forever).
local M = {}
local big = string.rep("n", 1024 * 1024)
function M.decide(self, world)
  for i = 1, 10 do pcall(plot, big, i) end
  plot("fine", 1)
  plot(big, 1)
end
return M
