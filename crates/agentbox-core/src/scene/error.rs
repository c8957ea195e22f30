//! Located scene errors, printed as `FILE:LINE:COL: error: message`.

use std::fmt;
use std::path::PathBuf;

/// One problem in a scene file, with the place to fix it (line and column are 1-based).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SceneError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for SceneError {}

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

/// All the problems found in one scene file, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneErrors(pub Vec<SceneError>);

impl fmt::Display for SceneErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SceneErrors {}
