//! Questions asked of the world: a Lua expression of `world` (as `expect:` predicates get it,
//! read-only, with `world:memory(id)` and views' `label`), compiled once in its own sandbox and
//! evaluated against a world after a tick. `headless --stop-when`, the window's watches, its
//! "tick where" search, breakpoints and console prompt all ask through here.
//!
//! It only reads: the world is lent read-only for the call, and an expression that raises or
//! runs out of budget is an error message, never a failed agent.

use super::{errors, inspect, sandbox, ScriptHost};
use agentbox_core::world::World;
use mlua::chunk::ChunkMode;
use mlua::{Function, MultiValue, Table, Value};
use std::path::Path;
use std::rc::Rc;

/// The registry table holding compiled expressions, by handle.
const REGISTRY: &str = "agentbox.expressions";

/// A compiled expression (only meaningful to the host that compiled it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expression(usize);

/// What an expression gave at one tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Whether the value holds as a Lua condition (neither `nil` nor `false`).
    pub holds: bool,
    /// The value as text, as the inspector shows values (tables pretty-printed, bounded).
    pub text: String,
}

impl ScriptHost {
    fn expressions(&self) -> mlua::Result<Table> {
        self.registry_table(REGISTRY)
    }

    /// Compiles `code`, a Lua expression of `world`; a syntax error is a message naming the
    /// expression (`name`) and the place.
    pub fn compile_expression(&mut self, name: &str, code: &str) -> Result<Expression, String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        // Load id 0: an expression is no script load (its `require`s are nobody's).
        let ctx = sandbox::new_context(&self.lua, Path::new("."), 0).map_err(describe)?;
        let env = sandbox::new_env(&self.lua, &ctx).map_err(describe)?;
        let compile = |source: String| {
            self.lua
                .load(source)
                .set_name(format!("={name}"))
                .set_mode(ChunkMode::Text)
                .set_environment(env.clone())
                .into_function()
        };
        // On the code's own line, so a message's line is the expression's; only an expression
        // that ends in a `--` comment needs the closing parenthesis on the next line.
        let function = compile(format!("local world = ...; return ({code})"))
            .or_else(|first| {
                compile(format!("local world = ...; return ({code}\n)")).map_err(|_| first)
            })
            .map_err(describe)?;
        let table = self.expressions().map_err(describe)?;
        let handle = table.raw_len() + 1;
        table.raw_set(handle, function).map_err(describe)?;
        Ok(Expression(handle))
    }

    /// Evaluates `expression` against `world`, read-only, under the work budget: its value, or
    /// the error it raised as a one-line message.
    pub fn evaluate(
        &mut self,
        expression: Expression,
        world: &Rc<World>,
    ) -> Result<Answer, String> {
        let describe = |e: mlua::Error| errors::describe(&e);
        let function: Function = self
            .expressions()
            .and_then(|t| t.raw_get(expression.0))
            .map_err(describe)?;
        self.raw.views.begin_round(world);
        let args = MultiValue::from_iter([Value::Table(self.world_table.clone())]);
        let value = self
            .lent
            .lend(world, || self.call(&function, args))
            .map_err(String::from)?;
        Ok(Answer {
            holds: !matches!(value, Value::Nil | Value::Boolean(false)),
            text: inspect::pretty(&value),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentbox_core::world::{Agent, Tile};

    fn world() -> Rc<World> {
        let mut world = World::from_ascii(&["....."]);
        world.agents.push(Agent::new("a", Tile::new(1, 0)));
        let mut b = Agent::new("b", Tile::new(3, 0));
        b.label = Some("search".into());
        world.agents.push(b);
        Rc::new(world)
    }

    #[test]
    fn an_expression_reads_the_world_and_says_whether_it_holds() {
        let mut host = ScriptHost::new(1).expect("host");
        let w = world();
        let far = host
            .compile_expression("e", "world:agent('b').pos.x - world:agent('a').pos.x")
            .expect("compiles");
        let answer = host.evaluate(far, &w).expect("evaluates");
        assert!(answer.holds);
        assert_eq!(answer.text, "2.0");
        let no = host
            .compile_expression("e", "world:agent('a').pos.x > 1e9")
            .expect("compiles");
        assert!(!host.evaluate(no, &w).expect("evaluates").holds);
        let label = host
            .compile_expression("e", "world:agent('a').label")
            .expect("compiles");
        assert_eq!(host.evaluate(label, &w).expect("evaluates").text, "nil");
        let label = host
            .compile_expression("e", "world:agent('b').label == 'search'")
            .expect("compiles");
        assert!(host.evaluate(label, &w).expect("evaluates").holds);
    }

    #[test]
    fn bad_expressions_are_messages_not_panics() {
        let mut host = ScriptHost::new(1).expect("host");
        let syntax = host
            .compile_expression("stop-when", "world:agent(")
            .unwrap_err();
        assert!(syntax.contains("stop-when:1:"), "{syntax}");
        let commented = host.compile_expression("e", "world:tick() > 2 -- late");
        assert!(commented.is_ok(), "{commented:?}");
        let raises = host
            .compile_expression("stop-when", "world:agent('nobody').pos.x > 1")
            .expect("compiles");
        let message = host.evaluate(raises, &world()).unwrap_err();
        assert!(message.contains("stop-when:1"), "{message}");
    }
}
