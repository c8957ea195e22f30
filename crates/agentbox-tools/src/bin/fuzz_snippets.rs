//! A fuzzer for the script sandbox, run by hand, out of CI:
//!
//! ```text
//! cargo build --release
//! cargo run --release -p agentbox-tools --bin fuzz_snippets -- --minutes 30 --seed 1 --out fuzz-out
//! ```
//!
//! It generates random `decide` bodies from the operations a script can use to hurt the host
//! (endless loops, deep recursion, `pcall`/`xpcall` with hostile handlers, looping `__close` and
//! `__tostring`, coroutines in odd orders, huge `string.rep`, pathological patterns, odd
//! `string.format` specifiers, `table.*` with huge ranges or hostile comparators, `load`,
//! looping metamethods, `rawset` on the host's tables, big `self.memory` writes, the bindings
//! with NaN, infinities and wrong types; C-library calls on huge and adversarial arguments in
//! loops: long strings read, built, hashed and compared, huge varargs, colliding integer keys,
//! sparse tables, long `or` chains compiled), nested 2–4 levels deep. Each case is a scene with one
//! hostile agent running the snippet, walled off from a healthy walker that must reach its goal.
//! The release binary (`target/release/agentbox`) runs it headless for 20 ticks, twice, as a
//! child under `timeout 30` and `prlimit --as=1GiB`.
//!
//! A failure is: a death by signal, a panic message, the time or memory limit, a run over 10 s
//! of CPU time (`/usr/bin/time`; wall time where it is missing),
//! the CPU-time net firing (work the count missed), a trace that is not 20 JSON lines, a
//! walker that did not move, or two runs with different traces. Each kind
//! is saved once under `--out/<kind>/` (the smallest snippet seen of that kind): the snippet,
//! the scene, the walker and both runs' stderr. It never writes outside `--out` and a scratch
//! folder under the temp dir; it does not touch the simulation's code.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const TICKS: usize = 20;

const WALKER: &str = r#"local M = {}
function M.decide(self, world)
  local label = string.format("%s-%d", self.id, math.floor(world:tick()))
  local joined = table.concat({ label, "ok" }, " ")
  assert(#joined > 0 and nav.los(self.pos, { x = 10, y = 3 }))
  return move.to({ x = 10, y = 3 })
end
return M
"#;

/// The hostile agent has a room of its own, so nothing it does to its position blocks the walker.
const SCENE: &str = r#"name: fuzz
tick_rate: 30
map:
  rows: |
    ############
    #..........#
    ############
    #..........#
    ############
agents:
  - id: hostile
    at: [1, 1]
    script: scripts/hostile.lua
  - id: walker
    at: [1, 3]
    script: scripts/walker.lua
"#;

struct Args {
    minutes: f64,
    seed: u64,
    out: PathBuf,
    binary: PathBuf,
    dump: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut minutes = 30.0;
    let mut seed = 1;
    let mut out = PathBuf::from("fuzz-out");
    let mut binary = PathBuf::from("target/release/agentbox");
    let mut dump = 0;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--minutes" => {
                minutes = value()?
                    .parse()
                    .map_err(|e| format!("--minutes: {e}"))?
            }
            "--seed" => seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" => out = PathBuf::from(value()?),
            "--binary" => binary = PathBuf::from(value()?),
            "--dump" => dump = value()?.parse().map_err(|e| format!("--dump: {e}"))?,
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: fuzz_snippets --minutes M --seed S --out DIR [--binary PATH] [--dump N]"
                ))
            }
        }
    }
    Ok(Args {
        minutes,
        seed,
        out,
        binary,
        dump,
    })
}

/// The snippet generator: a seeded stream, so a seed and a case number give the same snippet.
struct Gen {
    rng: ChaCha8Rng,
    fresh: u32,
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A fresh local name, so nested snippets never clash.
    fn name(&mut self) -> String {
        self.fresh += 1;
        format!("v{}", self.fresh)
    }

    fn number(&mut self) -> &'static str {
        self.pick(&[
            "0/0",
            "1/0",
            "-1/0",
            "1e18",
            "-1e18",
            "math.maxinteger",
            "math.mininteger",
            "2^53",
            "-1",
            "0",
            "3",
            "1e308",
            "'7'",
            "{}",
            "nil",
            "true",
            "print",
        ])
    }

    fn point(&mut self) -> String {
        match self.below(6) {
            0 => format!("{{ x = {}, y = {} }}", self.number(), self.number()),
            1 => format!("{{ {}, {} }}", self.number(), self.number()),
            2 => "self.pos".into(),
            3 => "world:agent('walker')".into(),
            4 => self.number().into(),
            _ => format!(
                "setmetatable({{}}, {{ __index = function() {} return 1 end }})",
                self.atom()
            ),
        }
    }

    fn binding(&mut self) -> String {
        let p = self.point();
        let q = self.point();
        let n = self.number();
        match self.below(30) {
            0 => format!("move.to({p})"),
            1 => format!("move.path_to({p}, {{ size = {n}, diagonal = {n} }})"),
            2 => format!("move.chase({p})"),
            3 => format!("move.evade({p})"),
            4 => format!("move.waypoints({p})"),
            5 => format!("move.tank_to({p})"),
            6 => format!("move.basic_chase({p})"),
            7 => format!("move.los_chase({p})"),
            8 => format!("move.intercept({p})"),
            9 => format!("move.wander_avoid({p})"),
            10 => format!("move.potential({{ target = {p}, A = {n}, B = {n}, n = {n}, m = {n}, obstacle = {n}, range = {n} }})"),
            11 => format!("move.swarm({{ kind = {n}, A = {n}, range = {n}, target = {p} }})"),
            12 => format!("move.trace_around({p}, {{ variant = {n} }})"),
            13 => format!("move.follow_crumbs({p}, {{ gap = {n} }})"),
            14 => format!("move.follow_road({{ speed = {n} }})"),
            15 => format!("move.wall_trace({{ side = {n} }})"),
            16 => format!("nav.los({p}, {q})"),
            17 => format!("nav.line({p}, {q})"),
            18 => format!("nav.path({p}, {q}, {{ size = {n}, max_nodes = {n} }})"),
            19 => format!("nav.waypoint_route({p}, {q})"),
            20 => format!("world:agent({n})"),
            21 => format!("world:agents({{ kind = {n}, within = {n}, of = {p} }})"),
            22 => format!("world:nearest({p}, {n})"),
            23 => format!("world:terrain({n}, {n})"),
            24 => format!("world:blocked({p})"),
            25 => format!("world:crumbs({n})"),
            26 => "world.tick()".into(),
            27 => format!("world.agent({n}, 'walker')"),
            28 => "move.stop(1, 2, 3)".into(),
            _ => format!("world:size({n})"),
        }
    }

    /// One leaf operation: a statement that needs no surrounding locals.
    fn atom(&mut self) -> String {
        let v = self.name();
        let n = self.number();
        match self.below(72) {
            0 => "while true do end".into(),
            1 => format!("repeat local {v} = 1 until false"),
            2 => format!("for {v} = 1, math.huge do end"),
            3 => format!("for {v} = 1, 1e18 do local _ = {v} * 2 end"),
            4 => match self.below(3) {
                0 => format!("do ::top{v}:: goto top{v} end"),
                1 => format!("do local {v} = 0 ::top{v}:: {v} = {v} + 1 if {v} > 0 then goto top{v} end end"),
                _ => format!("local {v} = 0 repeat {v} = {v} + 1 until {v} < 0"),
            },
            5 => format!("local function {v}(n) return {v}(n + 1) + 1 end {v}(1)"),
            6 => format!("local function {v}(n) return {v}(n + 1) end {v}(1)"),
            7 => format!("local {v}a, {v}b function {v}a(n) return {v}b(n) + 1 end function {v}b(n) return {v}a(n) + 1 end {v}a(1)"),
            8 => "error(setmetatable({}, { __tostring = function() while true do end end }))".into(),
            9 => "error(setmetatable({}, { __tostring = function() return {} end }))".into(),
            10 => format!("do local {v} <close> = setmetatable({{}}, {{ __close = function() while true do end end }}) end"),
            11 => format!("do local {v} <close> = setmetatable({{}}, {{ __close = function() error('close') end }}) error('body') end"),
            12 => format!("local {v} = coroutine.create(function() while true do coroutine.yield() end end) for i = 1, 1e9 do coroutine.resume({v}) end"),
            13 => "coroutine.close(coroutine.running())".into(),
            14 => "coroutine.yield(1, 2)".into(),
            15 => format!("local {v} {v} = coroutine.create(function() return coroutine.resume({v}) end) coroutine.resume({v})"),
            16 => format!("local {v} = coroutine.create(function() local c <close> = setmetatable({{}}, {{ __close = function() while true do end end }}) coroutine.yield() end) coroutine.resume({v}) coroutine.close({v})"),
            17 => format!("local {v} = coroutine.wrap(function() error(setmetatable({{}}, {{ __tostring = function() while true do end end }})) end) {v}()"),
            18 => format!("local {v} = string.rep('x', {})", self.pick(&["1e9", "2^31", "1e18", "-1", "2^40", "1e7"])),
            19 => format!("local {v} = string.rep('ab', {}, ',')", self.pick(&["1e9", "2^31", "1e7", "math.maxinteger"])),
            20 => format!("local {v} = string.find(string.rep('a', 3e5), '.-.-.-.-.-b')"),
            21 => format!("local {v} = string.match(string.rep('a', 1e5), {})", self.pick(&["'(.-)%1$'", "'^(a*)*b'", "string.rep('a?', 2000) .. string.rep('a', 2000)", "string.rep('(', 40) .. 'a' .. string.rep(')', 40)", "string.rep('%f[%w]', 500)", "'%b()'", "'[%'"])),
            22 => format!("local {v} = string.gsub(string.rep('ab', 1e5), {}, {})", self.pick(&["''", "'.'", "'(a)(b)'"]), self.pick(&["'%0%0%0%0'", "function(c) return c:rep(100) end", "{}", "'%9'", "setmetatable({}, { __index = function() while true do end end })"])),
            23 => format!("for {v} in string.gmatch(string.rep('a', 1e6), {}) do end", self.pick(&["''", "'a-'", "'.-$'", "'()'"])),
            24 => format!("local {v} = string.format({}, {n}, {n})", self.pick(&["'%p'", "'%99s'", "'%99.99f'", "'%100d'", "'%q'", "'%a'", "'%5$s'", "string.rep('%s', 1000)", "'%-099.099g'", "'%c'", "'%i'", "'%10q'"])),
            25 => format!("local {v} = string.format('%p', 'a string')"),
            26 => format!("local {v} = string.format('%s', setmetatable({{}}, {{ __tostring = function() while true do end end }}))"),
            27 => format!("local {v} = table.concat(setmetatable({{}}, {{ __index = function() return 'x' end }}), '', 1, {})", self.pick(&["1e9", "math.maxinteger", "1e7"])),
            28 => format!("local {v} = {{1, 2, 3}} table.insert({v}, {n}, 1)"),
            29 => format!("local {v} = table.move({{1, 2, 3}}, {}, {}, {})", self.pick(&["1", "-1e18", "math.mininteger"]), self.pick(&["1e18", "math.maxinteger", "3"]), self.pick(&["2", "math.maxinteger", "-1e18"])),
            30 => format!("local {v} = {{ table.unpack({{}}, {}, {}) }}", self.pick(&["1", "-1e18", "math.mininteger"]), self.pick(&["1e7", "250", "math.maxinteger", "1e18"])),
            31 => format!("local {v} = {{}} for i = 1, 200 do {v}[i] = (i * 7919) % 101 end table.sort({v}, {})", self.pick(&["function(a, b) while true do end end", "function(a, b) return true end", "function() error({}) end", "function(a, b) return a > b end", "function(a, b) table.sort({3, 2, 1}, function(x, y) return x < y end) return a < b end"])),
            32 => format!("local {v} = {{1, 2, 3}} table.remove({v}, {n})"),
            33 => format!("local {v} = load({})", self.pick(&["string.rep('a=', 1e5)", "'return ' .. string.rep('(', 1000) .. '1' .. string.rep(')', 1000)", "string.rep('{', 1e5)", "'x = ' .. string.rep('\\'a\\' .. ', 1e4) .. '\\'b\\''", "'\\27Lua'", "string.rep('do ', 300) .. string.rep('end ', 300)", "'local a <close> = 1'"])),
            34 => format!("local {v} = setmetatable({{}}, {{}}) getmetatable({v}).__index = {v} local _ = {v}.x"),
            35 => format!("local {v} = setmetatable({{}}, {{ __index = function(t, k) return t[k] end }}) local _ = {v}.x"),
            36 => format!("local {v} = setmetatable({{}}, {{ __newindex = function(t, k, x) t[k] = x end }}) {v}.x = 1"),
            37 => format!("local {v} = setmetatable({{}}, {{ __call = function(s) return s() end }}) {v}()"),
            38 => format!("local {v}mt = {{}} {v}mt.__eq = function(a, b) return a == b end local {v}a, {v}b = setmetatable({{}}, {v}mt), setmetatable({{}}, {v}mt) local _ = {v}a == {v}b"),
            39 => format!("local {v}mt = {{}} {v}mt.__lt = function(a, b) return a < b end local _ = setmetatable({{}}, {v}mt) < setmetatable({{}}, {v}mt)"),
            40 => format!("local {v} = setmetatable({{}}, {{ __len = function(s) return #s end }}) local _ = #{v}"),
            41 => format!("local {v} = setmetatable({{}}, {{ __concat = function(a, b) return a .. b end }}) local _ = {v} .. 'x'"),
            42 => format!("local {v} = setmetatable({{}}, {{ __gc = function() while true do end end }})"),
            43 => format!("rawset(world, {}, {n})", self.pick(&["'tick'", "'agent'", "1", "'x'"])),
            44 => format!("rawset(self, {}, {n})", self.pick(&["'pos'", "'memory'", "'id'", "'x'"])),
            45 => format!("local {v} = rawget(world, 'tick') or rawget(self, 'pos') or rawlen(self)"),
            46 => format!("local {v} = world:agent('walker') rawset({v}, 'pos', {n}) {v}.x = {n} setmetatable({v}, nil)"),
            47 => format!("self.memory.{v} = {{}} for i = 1, {} do self.memory.{v}[i] = {{ i, tostring(i) }} end", self.pick(&["1e3", "1e5", "1e7"])),
            48 => format!("self.memory.{v} = string.rep('x', {})", self.pick(&["1e6", "1e8"])),
            49 => format!("self.memory.{v} = self.memory self.memory[{n}] = print"),
            50 => format!("self.memory = setmetatable({{}}, {{ __index = function() while true do end end }}) local _ = self.memory.{v}"),
            51 => format!("local {v} = math.random({})", self.pick(&["0", "1e18", "-1e18, 1e18", "math.mininteger, math.maxinteger", "3, 1", "0/0", "1/0", "1, 2, 3", "'x'", "1.5"])),
            52 => format!("print(tostring(world), self, move, nav, _G, _ENV, {n}, coroutine.running())"),
            53 => format!("for {v}k, {v}x in pairs(world) do print({v}k, {v}x) end for {v}k in pairs(self) do print({v}k) end"),
            54 => format!("local {v} = {{ [1] = 1, x = 2, [{{}}] = 3, [print] = 4, [1.5] = 5, [true] = 6, [-0.0] = 7 }} for k, x in pairs({v}) do print(k, x) end"),
            55 => format!("local {v} = next({{}}, 'nokey')"),
            56 => format!("local {v} = {}", self.binding()),
            57 => format!("local {v} = {} print({v}, type({v}))", self.binding()),
            58 => format!("local {v} = getmetatable('') {v}.__index = function() while true do end end"),
            59 => format!("local {v} = select('#', table.unpack({{}}, 1, 1e6))"),
            60 => format!("local {v} = tostring(setmetatable({{}}, {{ __name = string.rep('n', 1e6) }}))"),
            61 => format!("local {v} = ('x'):rep(1e5):upper():lower():reverse():byte(1, -1)"),
            62 => format!("local {v} = string.char(string.byte(string.rep('a', 1e6), 1, -1))"),
            63 => format!(
                "local {v} = string.rep('x', 1e7) for i = 1, {} do local _ = {} end",
                self.pick(&["10", "1e9"]),
                self.pick(&[
                    "{v}:upper()",
                    "{v}:reverse()",
                    "{v}:sub(2)",
                    "{v} .. 'y'",
                    "{v} == {v}:lower()",
                    "{v} < {v}:lower()",
                    "string.format('%s', {v})",
                    "select('#', {v}:byte(1, 1e5))",
                ])
                .replace("{v}", &v)
            ),
            64..=70 => self.huge(&v),
            _ => format!("error({})", self.pick(&["nil", "42", "{}", "print", "coroutine.create(print)", "string.rep('e', 1e6)", "setmetatable({}, { __tostring = function() return 1 end })"])),
        }
    }

    /// A long string, built cheaply (doubling with `..`).
    fn long_string(&mut self) -> String {
        let size = self.pick(&["4e6", "16e6", "1e6", "2^22"]);
        let piece = self.pick(&[
            "'x'",
            "'é'",
            "'1'",
            "'\\0\\n\\\"'",
            "'%'",
            "'0123456789abcdef'",
            "'a,'",
        ]);
        format!("(function() local s = {piece} while #s < {size} do s = s .. s end return s end)()")
    }

    /// A C-library call on huge or adversarial arguments, in a loop: each pass must cost what
    /// its C work costs, or the loop freezes the scene (issue 36's classes: every byte a C
    /// function reads or builds, huge varargs, colliding keys, long `or` chains, compiling).
    fn huge(&mut self, v: &str) -> String {
        let times = self.pick(&["1e9", "3", "1e4"]);
        let string = format!("local S = {}", self.long_string());
        let big = format!(
            "local BIG = {{}} for i = 1, {} do BIG[i] = i end",
            self.pick(&["4e5", "1e5", "250"])
        );
        let or = format!("local OR = {}", self.pick(&["1e5", "3e4", "1e3"]));
        let sparse = format!(
            "local SPARSE = {{}} for i = 1, {} do SPARSE[i] = i end for i = 1, #SPARSE - 1 do SPARSE[i] = nil end",
            self.pick(&["1e6", "1e4"])
        );
        let collide = format!(
            "local COLLIDE, M = {{}}, 2^17 - 1 for i = 1, {} do COLLIDE[i * M] = i end local KEY = 99999 * M",
            self.pick(&["1e5", "3e4", "10"])
        );
        let (setup, call) = match self.below(26) {
            0 => (&string, "utf8.len(S)".to_string()),
            1 => (&string, "utf8.codepoint(S, 1, -1)".to_string()),
            2 => (&string, "tonumber(S)".to_string()),
            3 => (&string, "tonumber(S, 36)".to_string()),
            4 => (&string, "S + 0".to_string()),
            5 => (&string, "table.concat({ 'a', 'b', 'c' }, S)".to_string()),
            6 => (&string, "string.format(S .. '%d', 1)".to_string()),
            7 => (&string, "string.format('%q', S)".to_string()),
            8 => (&string, "string.format('%s%s', S, S)".to_string()),
            9 => (
                &string,
                format!(
                    "string.pack({}, '')",
                    self.pick(&["'c4000000'", "'c16000000'", "'i16i16i16i16'", "'s4'"])
                ),
            ),
            10 => (&string, "string.unpack('z', S)".to_string()),
            11 => (&string, "S:find('y', 1, true)".to_string()),
            12 => (&string, "S:byte(-1)".to_string()),
            13 => (&string, "S:sub(1, 1)".to_string()),
            14 => (&string, "S:len() + #S".to_string()),
            15 => (&string, "S:rep(2, S)".to_string()),
            16 => (&string, "({ [S] = 1 })[S .. '']".to_string()),
            17 => (&string, "rawequal(S, S .. '') or S == S .. ''".to_string()),
            18 => (&big, "select('#', table.unpack(BIG))".to_string()),
            19 => (
                &big,
                "(function(...) return select('#', ...) end)(table.unpack(BIG))".to_string(),
            ),
            20 => (&big, "string.char(table.unpack(BIG, 1, 255))".to_string()),
            21 => (&big, "math.max(table.unpack(BIG))".to_string()),
            22 => (
                &or,
                "load('return ' .. string.rep('x or ', OR) .. 'x')".to_string(),
            ),
            23 => (&or, "load(string.rep('local a = 1 ', OR))".to_string()),
            24 => (&sparse, "next(SPARSE)".to_string()),
            _ => (&collide, "COLLIDE[KEY]".to_string()),
        };
        format!("local {v} = (function() {setup} for i = 1, {times} do local _ = {call} end end)()")
    }

    /// A long-bracket level whose closing bracket does not occur in `body`.
    fn bracket(body: &str) -> String {
        let mut level = 0;
        loop {
            let close = format!("]{}]", "=".repeat(level));
            if !body.contains(&close) {
                return "=".repeat(level);
            }
            level += 1;
        }
    }

    /// A block of 1–3 statements nested `depth` more levels.
    fn block(&mut self, depth: usize) -> String {
        let count = 1 + self.below(3);
        (0..count)
            .map(|_| self.stmt(depth))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn stmt(&mut self, depth: usize) -> String {
        if depth == 0 || self.chance(25) {
            return self.atom();
        }
        let inner = self.block(depth - 1);
        let v = self.name();
        match self.below(16) {
            0 => format!("pcall(function()\n{inner}\nend)"),
            1 => {
                let handler = self.pick(&[
                    "while true do end",
                    "error(e)",
                    "return tostring(e)",
                    "error(setmetatable({}, { __tostring = function() while true do end end }))",
                    "local function r() return r() + 1 end return r()",
                    "return e",
                ]);
                format!("print(xpcall(function()\n{inner}\nend, function(e) {handler} end))")
            }
            2 => format!("coroutine.wrap(function()\n{inner}\nend)()"),
            3 => format!("local {v} = coroutine.create(function()\n{inner}\ncoroutine.yield()\n{inner}\nend)\nprint(coroutine.resume({v})) print(coroutine.resume({v})) print(coroutine.close({v}))"),
            4 => format!("for {v} = 1, {} do\n{inner}\nend", self.pick(&["1", "3", "1e9"])),
            5 => format!("do local {v} <close> = setmetatable({{}}, {{ __close = function()\n{inner}\nend }}) end"),
            6 => {
                let src = format!("local self, world = ...\n{inner}");
                let level = Self::bracket(&src);
                format!("local {v} = load([{level}[{src}]{level}])\nif {v} then {v}(self, world) end")
            }
            7 => format!("local {v}ok, {v}e = pcall(function()\n{inner}\nend)\nprint({v}ok, {v}e)"),
            8 => format!("local _ = setmetatable({{}}, {{ __index = function(t, k)\n{inner}\nend }}).{v}"),
            9 => format!("table.sort({{3, 1, 2, 5, 4}}, function(a, b)\n{inner}\nreturn a < b end)"),
            10 => format!("string.gsub('abc', '%w', function(c)\n{inner}\nend)"),
            11 => format!("if world:tick() % 2 == 0 then\n{inner}\nend"),
            12 => format!("local {v} = 0 while {v} < 3 do {v} = {v} + 1\n{inner}\nend"),
            13 => format!("local {v} = tostring(setmetatable({{}}, {{ __tostring = function()\n{inner}\nreturn 'x' end }}))"),
            14 => format!("do local {v} <close> = setmetatable({{}}, {{ __close = function() error('in close') end }})\n{inner}\nend"),
            _ => format!("local {v} = coroutine.wrap(function(...)\n{inner}\nend) print(pcall({v})) print(pcall({v}))"),
        }
    }

    fn ret(&mut self) -> String {
        match self.below(8) {
            0 => "return nil".into(),
            1 => "return 42".into(),
            2 => "return setmetatable({}, { __index = function() while true do end end })".into(),
            3 => format!("return {}", self.binding()),
            4 => "return move.stop(), move.stop()".into(),
            5 => "return move.to({ x = 5, y = 1 })".into(),
            _ => "return move.stop()".into(),
        }
    }

    fn script(&mut self) -> String {
        let depth = 2 + self.below(3);
        let body = self.block(depth);
        let ret = self.ret();
        let mut s = String::from("local M = {}\n");
        if self.chance(15) {
            let init = self.block(1);
            s.push_str(&format!("function M.init(self)\n{init}\nend\n"));
        }
        s.push_str(&format!(
            "function M.decide(self, world)\n{body}\n{ret}\nend\n"
        ));
        if self.chance(10) {
            s.push_str("M.decide = coroutine.wrap(M.decide)\n");
        }
        s.push_str("return M\n");
        s
    }
}

struct Run {
    out: Output,
    trace: Vec<u8>,
    elapsed: Duration,
    /// The run's CPU time (user + system), from `/usr/bin/time`; `None` without it.
    cpu: Option<Duration>,
}

/// Where `/usr/bin/time` is, to measure a run's CPU time (wall time on a shared machine says
/// more about the neighbours than about the case).
const TIME: &str = "/usr/bin/time";

fn run_case(binary: &Path, dir: &Path, run: usize) -> Result<Run, String> {
    let trace = dir.join(format!("trace{run}.jsonl"));
    let _ = std::fs::remove_file(&trace);
    let cpu_file = dir.join(format!("cpu{run}.txt"));
    let _ = std::fs::remove_file(&cpu_file);
    let timed = Path::new(TIME).exists();
    let start = Instant::now();
    let mut command = Command::new("/usr/bin/timeout");
    command.args(["-k", "5", "30", "/usr/bin/prlimit", "--as=1073741824", "--"]);
    if timed {
        command.args([TIME, "-f", "%U %S", "-o"]).arg(&cpu_file);
    }
    let out = command
        .arg(binary)
        .args([
            "headless",
            "scene.yaml",
            "--allow-errors",
            "--ticks",
            &TICKS.to_string(),
            "--trace",
        ])
        .arg(&trace)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let elapsed = start.elapsed();
    let trace = std::fs::read(&trace).unwrap_or_default();
    // `/usr/bin/time` writes "Command exited with non-zero status N" first when it fails.
    let cpu = std::fs::read_to_string(&cpu_file).ok().and_then(|text| {
        let last = text.lines().last()?.to_string();
        let mut parts = last.split_whitespace().map(|p| p.parse::<f64>().ok());
        Some(Duration::from_secs_f64(parts.next()?? + parts.next()??))
    });
    Ok(Run {
        out,
        trace,
        elapsed,
        cpu,
    })
}

/// What went wrong in one run, as a failure kind and a detail, if anything.
fn judge(run: &Run) -> Option<(String, String)> {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    if let Some(signal) = run.out.status.signal() {
        let kind = if stderr.contains("memory allocation") {
            "memory-limit".to_string()
        } else {
            format!("signal-{signal}")
        };
        return Some((kind, format!("killed by signal {signal}")));
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("panicked at")) {
        // A panic's location names the bug: one kind per location.
        let place = line
            .split("panicked at ")
            .nth(1)
            .unwrap_or("")
            .trim_end_matches(':')
            .replace(['/', '\\', ':', ' ', '\''], "_");
        return Some((format!("panic-{place}"), line.to_string()));
    }
    if stderr.contains("cpu time limit exceeded")
        || run.trace.windows(16).any(|w| w == b"replay_may_diff")
    {
        // The count missed some work and the CPU-time net caught it: a class to charge.
        return Some(("cpu-net".into(), "the CPU-time net fired".into()));
    }
    if run.cpu.unwrap_or(run.elapsed) > Duration::from_secs(10) {
        return Some((
            "slow".into(),
            format!("{:?} CPU, {:?} wall", run.cpu, run.elapsed),
        ));
    }
    match run.out.status.code() {
        Some(0) => {}
        Some(124) => return Some(("time-limit".into(), format!("{:?}", run.elapsed))),
        Some(code) if code > 128 => {
            let kind = if stderr.contains("memory allocation") {
                "memory-limit".to_string()
            } else {
                format!("signal-{}", code - 128)
            };
            return Some((kind, format!("exit {code}")));
        }
        Some(code) => return Some((format!("exit-{code}"), stderr.to_string())),
        None => return Some(("no-status".into(), String::new())),
    }
    let text = match std::str::from_utf8(&run.trace) {
        Ok(t) => t,
        Err(e) => return Some(("trace-not-utf8".into(), e.to_string())),
    };
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(v) => lines.push(v),
            Err(e) => return Some(("trace-not-json".into(), format!("line {}: {e}", i + 1))),
        }
    }
    if lines.len() != TICKS {
        return Some((
            "trace-length".into(),
            format!("{} lines, expected {TICKS}", lines.len()),
        ));
    }
    let x = |line: &serde_json::Value| {
        line["agents"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == "walker"))
            .and_then(|w| w["x"].as_f64())
    };
    match (x(&lines[0]), x(&lines[TICKS - 1])) {
        (Some(a), Some(b)) if b - a >= 1.0 => None,
        (Some(a), Some(b)) => Some(("walker-stopped".into(), format!("moved {}", b - a))),
        _ => Some(("walker-missing".into(), String::new())),
    }
}

struct Saved {
    size: usize,
    count: usize,
}

fn save(out: &Path, kind: &str, detail: &str, script: &str, runs: &[&Run]) -> std::io::Result<()> {
    let dir = out.join(kind);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scripts"))?;
    std::fs::write(dir.join("scene.yaml"), SCENE)?;
    std::fs::write(dir.join("scripts/walker.lua"), WALKER)?;
    std::fs::write(dir.join("scripts/hostile.lua"), script)?;
    std::fs::write(dir.join("detail.txt"), detail)?;
    for (i, run) in runs.iter().enumerate() {
        std::fs::write(dir.join(format!("stderr{}.txt", i + 1)), &run.out.stderr)?;
        std::fs::write(dir.join(format!("trace{}.jsonl", i + 1)), &run.trace)?;
    }
    Ok(())
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fuzz_snippets: {e}");
            std::process::exit(2);
        }
    };
    if args.dump > 0 {
        // Prints the first N snippets of the seed and stops (to look at the generator).
        let mut gen = Gen {
            rng: ChaCha8Rng::seed_from_u64(args.seed),
            fresh: 0,
        };
        for case in 1..=args.dump {
            gen.fresh = 0;
            println!("-- case {case}\n{}", gen.script());
        }
        return;
    }
    if !args.binary.exists() {
        eprintln!(
            "fuzz_snippets: {} not found; run `cargo build --release` first",
            args.binary.display()
        );
        std::process::exit(2);
    }
    let binary = std::fs::canonicalize(&args.binary).expect("the binary's path");
    std::fs::create_dir_all(&args.out).expect("the --out folder");
    let work = std::env::temp_dir().join(format!("agentbox-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("scripts")).expect("a scratch folder");
    std::fs::write(work.join("scene.yaml"), SCENE).expect("the scene");
    std::fs::write(work.join("scripts/walker.lua"), WALKER).expect("the walker");

    let deadline = Instant::now() + Duration::from_secs_f64(args.minutes * 60.0);
    let started = Instant::now();
    let mut gen = Gen {
        rng: ChaCha8Rng::seed_from_u64(args.seed),
        fresh: 0,
    };
    let mut kinds: BTreeMap<String, Saved> = BTreeMap::new();
    let mut cases = 0u64;
    let mut slowest = Duration::ZERO;
    while Instant::now() < deadline {
        gen.fresh = 0;
        let script = gen.script();
        std::fs::write(work.join("scripts/hostile.lua"), &script).expect("the snippet");
        let (first, second) = match (run_case(&binary, &work, 1), run_case(&binary, &work, 2)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("fuzz_snippets: {e}");
                std::process::exit(2);
            }
        };
        cases += 1;
        slowest = slowest.max(first.elapsed).max(second.elapsed);
        let verdict = judge(&first).or_else(|| judge(&second)).or_else(|| {
            (first.trace != second.trace).then(|| {
                let line = first
                    .trace
                    .split(|b| *b == b'\n')
                    .zip(second.trace.split(|b| *b == b'\n'))
                    .position(|(a, b)| a != b)
                    .map_or(0, |i| i + 1);
                (
                    "nondeterministic".to_string(),
                    format!("traces differ at line {line}"),
                )
            })
        });
        if let Some((kind, detail)) = verdict {
            let entry = kinds.entry(kind.clone()).or_insert(Saved {
                size: usize::MAX,
                count: 0,
            });
            entry.count += 1;
            if script.len() < entry.size {
                entry.size = script.len();
                if let Err(e) = save(&args.out, &kind, &detail, &script, &[&first, &second]) {
                    eprintln!("fuzz_snippets: cannot save a case: {e}");
                }
                println!(
                    "case {cases}: {kind}: {detail} (saved, {} bytes)",
                    script.len()
                );
            } else {
                println!("case {cases}: {kind}: {detail}");
            }
        }
        if cases.is_multiple_of(50) {
            let minutes = started.elapsed().as_secs_f64() / 60.0;
            println!(
                "progress: {cases} cases in {minutes:.1} min ({:.1}/min), slowest run {slowest:?}, failures {:?}",
                cases as f64 / minutes,
                kinds.iter().map(|(k, s)| (k.as_str(), s.count)).collect::<Vec<_>>()
            );
        }
    }
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    println!(
        "done: {cases} cases in {minutes:.1} min ({:.1}/min), slowest run {slowest:?}",
        cases as f64 / minutes
    );
    for (kind, saved) in &kinds {
        println!("  {kind}: {} cases", saved.count);
    }
    let _ = std::fs::remove_dir_all(&work);
}
