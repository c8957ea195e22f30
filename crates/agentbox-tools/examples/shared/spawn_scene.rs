//! The scene `acts_bench`'s spawn part and `spawn_profile` run, shared by both examples
//! (`#[path]`-included; not an example of its own). Writes files, runs nothing.

use std::path::Path;

/// Writes into `dir` the spawn scene (`spawn.yaml`): a hive that spawns `count` walkers
/// (`scripts/crowd.lua`, read from the repository root) in its third tick, beside one walker
/// of the scene.
pub fn write_scene(dir: &Path, count: usize) {
    let rows: String = (0..150)
        .map(|_| format!("    {}\n", ".".repeat(200)))
        .collect();
    let scene = format!(
        "name: spawn bench
seed: 1
tick_rate: 60
budget: {{ instructions: 10000000000 }}
map:
  rows: |
{rows}agents:
  - {{ id: hive, kind: hive, at: [1, 1], script: hive.lua }}
  - {{ id: walker-1, kind: walker, at: [2, 2], script: walker.lua, speed: 2, params: {{ space: 1.0 }} }}
"
    );
    let hive = format!(
        "local M = {{}}
function M.decide(self, world)
  if world:tick() == 2 then
    for i = 1, {count} do
      world:spawn({{ kind = \"walker\", at = {{ 1 + i % 198, 1 + (i // 198) % 148 }} }})
    end
  end
  return move.stop()
end
return M
"
    );
    let walker =
        std::fs::read_to_string("scripts/crowd.lua").expect("run from the repository root");
    std::fs::write(dir.join("spawn.yaml"), scene).unwrap();
    std::fs::write(dir.join("hive.lua"), hive).unwrap();
    std::fs::write(dir.join("walker.lua"), walker).unwrap();
}
