//! The display keys an agent or a `spawn:` group may carry: `color` ("#rrggbb") and `shape`
//! (circle, arrow, square, diamond). Checked and located here, then set on the agents as their
//! `Look`; the simulation never reads them.

use super::build::Checker;
use crate::world::{Look, Marker};

/// The display keys as a scene entry wrote them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LookKeys<'s> {
    pub color: Option<&'s str>,
    pub shape: Option<&'s str>,
}

impl LookKeys<'_> {
    /// Checks the keys of the entry at `path` (`agents.0`, `spawn.1`); whether both are good.
    pub fn check(&self, c: &mut Checker, path: &str) -> bool {
        let mut ok = true;
        if let Some(text) = self.color {
            match super::build::parse_color(text) {
                Some(_) => {}
                None => {
                    c.error(
                        &format!("{path}.color"),
                        format!(
                            "color must look like \"#d55e00\" (# and six hex digits), got {text:?}"
                        ),
                    );
                    ok = false;
                }
            }
        }
        if let Some(name) = self.shape {
            match Marker::named(name) {
                Some(_) => {}
                None => {
                    let names: Vec<&str> = Marker::ALL.iter().map(|(_, n)| *n).collect();
                    let hint = match super::shape::suggestion(name, &names) {
                        Some(s) => format!(" (did you mean {s}?)"),
                        None => String::new(),
                    };
                    c.error(
                        &format!("{path}.shape"),
                        format!("unknown shape `{name}`{hint}: one of {}", names.join(", ")),
                    );
                    ok = false;
                }
            }
        }
        ok
    }

    /// The look the keys give, leaving out a wrong one (`check` has reported it).
    pub fn look(&self) -> Look {
        Look {
            color: self.color.and_then(super::build::parse_color),
            shape: self.shape.and_then(Marker::named),
        }
    }
}
