//! `action:*`: the methods of the actions `move.*` returns (userdata whose block is the
//! action, `convert::make_action`; `convert::ActionMeta` binds every method declared here).
//! They read the action; nothing else.

use super::{Binding, Charge, Home, Library, Make};

/// The `action` library: the methods of an action.
pub const ACTION: Library = Library {
    home: Home::Action,
    heading: "actions",
    doc: "An action returned by `move.*`; `decide` returns it.",
    bindings: &[NAME],
};

pub const NAME: Binding = Binding {
    name: "action:name",
    params: &[],
    returns: &[("string", "e.g. \"chase\".")],
    doc: "The action's name, as shown in traces.",
    charge: Charge::None,
    make: Make::ActionMethod(|action| action.name()),
};
