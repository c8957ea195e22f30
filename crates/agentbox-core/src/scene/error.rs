//! Located scene errors, printed as `FILE:LINE:COL: error: message`.

use std::fmt;
use std::path::PathBuf;

/// One problem in a scene file, with the place to fix it (line and column are 1-based).
/// Its `Display` is the line `agentbox check` prints: `FILE:LINE:COL: error: message`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, thiserror::Error)]
#[error("{}:{line}:{column}: error: {message}", file.display())]
pub struct SceneError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Something in a scene file that loads but probably does not do what was meant (a keyboard
/// agent's `route:` leg that runs into a wall), with its place; printed by `agentbox check`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SceneWarning(pub SceneError);

impl fmt::Display for SceneWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        write!(
            f,
            "{}:{}:{}: warning: {}",
            e.file.display(),
            e.line,
            e.column,
            e.message
        )
    }
}

/// All the problems found in one scene file, in file order; its `Display` is one
/// `FILE:LINE:COL: error: message` line per problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", lines(.0))]
pub struct SceneErrors(pub Vec<SceneError>);

fn lines(errors: &[SceneError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
