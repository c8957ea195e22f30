//! The one way the host reads a script's strings and values into Rust text: bounded before
//! anything is copied. A script may hand any binding a 16 MB string; the host looks at its
//! length first (Lua keeps it), then copies at most the bytes it will use, converting invalid
//! UTF-8 as a lossy conversion does (U+FFFD). Messages describe values by their type, and a
//! string by a short quote, never through mlua's `Debug` (which prints heap addresses:
//! `Table(Ref(0x55d5...))`, something a script could read through `pcall`).
//!
//! It reads; it never keeps what it read and never calls into Lua.

use mlua::Value;
use std::borrow::Cow;

/// The most bytes of a name a script passes that the host keeps (a swarm's kind, a label's
/// worth of text): longer ones are refused, uncopied.
pub const NAME_BYTES: usize = 256;

/// The most bytes of a script's string quoted in a message (`unknown option "abc..."`).
pub const QUOTE_BYTES: usize = 64;

/// At most `max` bytes of `bytes` as text, invalid UTF-8 replaced, never splitting a
/// character of valid text; borrowed when it is valid UTF-8 and short enough.
pub fn prefix(bytes: &[u8], max: usize) -> Cow<'_, str> {
    let head = &bytes[..bytes.len().min(max)];
    match std::str::from_utf8(head) {
        Ok(text) => Cow::Borrowed(text),
        // A cut through the last character of otherwise valid text: drop the partial char.
        Err(e) if e.error_len().is_none() && head.len() < bytes.len() => {
            Cow::Borrowed(std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default())
        }
        Err(_) => String::from_utf8_lossy(head),
    }
}

/// The text of a script's string, lossy, cut to `max` bytes of it; `None` when it is longer
/// than `max` (nothing is copied then), with its length.
pub fn within(s: &mlua::LuaString, max: usize) -> Result<String, usize> {
    let bytes = s.as_bytes();
    if bytes.len() > max {
        return Err(bytes.len());
    }
    Ok(prefix(&bytes, max).into_owned())
}

/// A name a script passes (a kind, a terrain) as text, or the message saying it is too long
/// to be one (only its quote is copied then).
pub fn name(s: &mlua::LuaString) -> Result<String, String> {
    within(s, NAME_BYTES).map_err(|_| {
        format!(
            "{} is longer than a name may be ({NAME_BYTES} bytes at most)",
            quote_lua(s)
        )
    })
}

/// A string for a message: `"text"` with Rust's escapes, cut to [`QUOTE_BYTES`] bytes and
/// saying how long it was when cut (`"aaaa..." (16777216 bytes)`).
pub fn quote(bytes: &[u8]) -> String {
    let text = prefix(bytes, QUOTE_BYTES);
    if bytes.len() > QUOTE_BYTES {
        format!("{:?}... ({} bytes)", text, bytes.len())
    } else {
        format!("{text:?}")
    }
}

/// A Lua string for a message (see [`quote`]).
pub fn quote_lua(s: &mlua::LuaString) -> String {
    quote(&s.as_bytes())
}

/// A value for a message, without an address: `nil`, `true`, `12`, `1.5`, a quoted string
/// ([`quote`]), or its type (`a table`, `a function`, `a userdata`...).
pub fn describe(value: &Value) -> String {
    match value {
        Value::Nil => "nil".to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote_lua(s),
        other => format!("a {}", other.type_name()),
    }
}

/// Which of `choices` a script's value names: `Ok(None)` for nil, `Ok(Some(index))` for a
/// string equal to one of them (compared in place, nothing copied), else `Err` with the value
/// described for the message ([`describe`]).
pub fn choice(value: &Value, choices: &[&str]) -> Result<Option<usize>, String> {
    match value {
        Value::Nil => Ok(None),
        Value::String(s) => {
            let bytes = s.as_bytes();
            choices
                .iter()
                .position(|c| c.as_bytes() == &*bytes)
                .map(Some)
                .ok_or_else(|| quote(&bytes))
        }
        other => Err(describe(other)),
    }
}

/// A message of a script's (an error thrown with a string) as text, cut as
/// `ScriptError::bound` cuts it: at most `max` bytes, or the first `max - 256` and a note of
/// how many bytes were dropped; only the kept part is copied.
pub fn message(bytes: &[u8], max: usize) -> String {
    if bytes.len() <= max {
        return prefix(bytes, max).into_owned();
    }
    let keep = prefix(bytes, max.saturating_sub(256));
    let dropped = bytes.len() - keep.len().min(bytes.len());
    format!("{keep} [... {dropped} bytes dropped]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_at_most_the_bound_and_replaces_invalid_utf8() {
        assert_eq!(prefix(b"hello", 3), "hel");
        assert_eq!(prefix("héllo".as_bytes(), 2), "h");
        assert_eq!(prefix(b"a\xffb", 8), "a\u{fffd}b");
        assert!(matches!(prefix(b"abc", 8), Cow::Borrowed("abc")));
    }

    #[test]
    fn quotes_are_short_and_say_the_length() {
        let long = "x".repeat(1 << 20);
        let q = quote(long.as_bytes());
        assert!(q.len() < 100 && q.ends_with("(1048576 bytes)"), "{q}");
        assert_eq!(quote(b"diag"), "\"diag\"");
    }

    #[test]
    fn describes_values_without_addresses() {
        let lua = mlua::Lua::new();
        let t = Value::Table(lua.create_table().unwrap());
        let f = Value::Function(lua.create_function(|_, ()| Ok(())).unwrap());
        assert_eq!(describe(&t), "a table");
        assert_eq!(describe(&f), "a function");
        assert_eq!(describe(&Value::Integer(3)), "3");
        assert!(!format!("{t:?}").is_empty());
    }

    #[test]
    fn a_long_message_is_cut_with_a_note() {
        let long = "y".repeat(10_000);
        let m = message(long.as_bytes(), 4096);
        assert!(
            m.ends_with(&format!("[... {} bytes dropped]", 10_000 - 3840)),
            "{m}"
        );
        assert_eq!(message(b"short", 4096), "short");
    }
}
