//! Bounds on a scene file's shape that must be checked before the YAML parser sees it.
//!
//! YAML parsers keep one "possible key" per open flow collection (`[` or `{`) and re-check all
//! of them at every token, so a file of 200 KB nested 50,000 deep costs billions of steps
//! before any depth limit of theirs is reached. [`scan`] finds the first bracket past
//! [`MAX_FLOW_DEPTH`] in one linear pass over the text, so such a file is refused at once with
//! its place. Block nesting (indentation, `- - -`) costs the parser nothing extra and is
//! stopped by its own limit, [`MAX_DEPTH`].
//!
//! The pass is a light tokenizer, not a YAML parser: it skips comments, quoted strings and
//! block scalars (`rows: |`), and counts brackets only from the first that starts a value. It
//! may count a bracket a parser would read as text (a multi-line plain string whose next line
//! begins with `[`), never the other way round for a value that opens with a bracket.

/// The deepest nesting of flow collections (`[...]`, `{...}`) a scene file may have.
pub const MAX_FLOW_DEPTH: usize = 32;

/// The deepest nesting of lists and mappings of any kind (the YAML reader's own limit).
pub const MAX_DEPTH: usize = 128;

/// The most values (keys, scalars, and flow collections) a scene file may have: the parsers'
/// time grows with their number, and 500,000 read in well under a second.
pub const MAX_VALUES: usize = 500_000;

/// Which bound a scene file broke, at a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// A `[` or `{` opens a flow collection nested deeper than allowed.
    FlowDepth(usize),
    /// The value that is one too many starts here.
    Values(usize),
}

/// The first bound `text` breaks: flow nesting deeper than `max_depth`, or more than
/// `max_values` values (counted as the tokenizer sees them: each key, scalar and flow
/// collection).
///
/// Longer than 80 lines on purpose: it is one pass over the bytes whose state (position,
/// flow depth, line start and indentation, block scalar, entry start, value count) lives in
/// locals shared by its two halves, the block context and the flow context; split, every
/// half would take all of it by reference, and the pass is easier to check against YAML's
/// rules when each byte's case is read in one place.
pub fn scan(text: &str, max_depth: usize, max_values: usize) -> Option<Exceeded> {
    let b = text.as_bytes();
    let n = b.len();
    let space = |i: usize| i >= n || matches!(b[i], b' ' | b'\t' | b'\r' | b'\n');
    let mut i = 0;
    let mut depth = 0usize;
    // Outside flow collections: where the line starts, its indentation, whether the next
    // character starts a value, and the indentation a block scalar's lines must exceed.
    let mut line_start = true;
    let mut line_indent = 0;
    let mut value_start = true;
    let mut block_scalar_over: Option<usize> = None;
    // Inside: whether the next character starts an entry (after `[`, `{`, `,` or `:`).
    let mut entry_start = false;
    let mut values = 0usize;
    macro_rules! value {
        () => {
            values += 1;
            if values > max_values {
                return Some(Exceeded::Values(i));
            }
        };
    }
    while i < n {
        let c = b[i];
        if depth == 0 {
            if line_start {
                let mut j = i;
                while j < n && b[j] == b' ' {
                    j += 1;
                }
                let blank = j >= n || matches!(b[j], b'\n' | b'\r');
                if let Some(parent) = block_scalar_over {
                    if blank || j - i > parent {
                        // The next line starts past this line's newline.
                        i = end_of_line(b, j) + 1;
                        continue;
                    }
                    block_scalar_over = None;
                }
                line_indent = j - i;
                line_start = false;
                value_start = true;
                i = j;
                continue;
            }
            match c {
                b'\n' => {
                    line_start = true;
                    i += 1;
                }
                b'#' if i == 0 || space(i - 1) => i = end_of_line(b, i),
                b' ' | b'\t' | b'\r' => i += 1,
                b'[' | b'{' if value_start => {
                    value!();
                    depth = 1;
                    entry_start = true;
                    if depth > max_depth {
                        return Some(Exceeded::FlowDepth(i));
                    }
                    i += 1;
                }
                b'"' | b'\'' if value_start => {
                    value!();
                    i = end_of_quoted(b, i);
                    value_start = false;
                }
                b'|' | b'>' if value_start => {
                    value!();
                    block_scalar_over = Some(line_indent);
                    i = end_of_line(b, i);
                }
                b'-' | b'?' | b':' if space(i + 1) => {
                    // A list entry or a complex key counts too: `- - - -` on one line nests
                    // a list per dash.
                    if c != b':' {
                        value!();
                    }
                    value_start = true;
                    i += 1;
                }
                b'&' | b'!' if value_start => {
                    // An anchor or a tag: the value comes after it.
                    while !space(i) {
                        i += 1;
                    }
                }
                _ => {
                    if value_start {
                        value!();
                    }
                    value_start = false;
                    i += 1;
                }
            }
        } else {
            match c {
                b'[' | b'{' => {
                    value!();
                    depth += 1;
                    if depth > max_depth {
                        return Some(Exceeded::FlowDepth(i));
                    }
                    entry_start = true;
                    i += 1;
                }
                b']' | b'}' => {
                    depth -= 1;
                    entry_start = false;
                    value_start = false;
                    i += 1;
                }
                b',' | b':' => {
                    entry_start = true;
                    i += 1;
                }
                b'"' | b'\'' if entry_start => {
                    value!();
                    i = end_of_quoted(b, i);
                    entry_start = false;
                }
                b'#' if space(i - 1) => i = end_of_line(b, i),
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                _ => {
                    if entry_start {
                        value!();
                    }
                    entry_start = false;
                    i += 1;
                }
            }
        }
    }
    None
}

/// The offset of the newline ending the line at `i` (or the end).
fn end_of_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// The offset just past the quoted string opening at `i` (or the end, if it never closes).
fn end_of_quoted(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if quote == b'"' => j += 2,
            b'\'' if quote == b'\'' && b.get(j + 1) == Some(&b'\'') => j += 2,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte offset of the first `[` or `{` that opens a flow collection nested deeper
    /// than `max`, if there is one.
    fn too_deep_flow(text: &str, max: usize) -> Option<usize> {
        match scan(text, max, usize::MAX) {
            Some(Exceeded::FlowDepth(at)) => Some(at),
            _ => None,
        }
    }

    fn nested(depth: usize) -> String {
        format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn finds_the_first_bracket_past_the_limit() {
        assert_eq!(too_deep_flow(&nested(3), 3), None);
        assert_eq!(too_deep_flow(&nested(4), 3), Some(6));
        // Mappings count as well, and nesting across lines.
        let text = "x: 1\nb:\n  - {a: [\n     {c: [1]}]}\n";
        assert_eq!(too_deep_flow(text, 4), None);
        assert_eq!(too_deep_flow(text, 3), Some(text.find("[1]").unwrap()));
        // A sequence entry and a value after an anchor or a tag open flow nesting too.
        assert_eq!(too_deep_flow("- [[[1]]]\n", 2), Some(4));
        assert_eq!(too_deep_flow("a: &x !!seq [[[1]]]\n", 2), Some(14));
    }

    #[test]
    fn brackets_in_text_block_scalars_quotes_and_comments_do_not_count() {
        let rows = "map:\n  rows: |\n    [[[[[[\n    {{{{{{\n\n    [[[[\nname: \"[[[[[[\"\n";
        assert_eq!(too_deep_flow(rows, 1), None);
        let more = "name: a [[[[ b # [[[[\nq: '[[''[[['\nc: [\"]]]]\", '[[[[', x # [[[[\n  ]\n";
        assert_eq!(too_deep_flow(more, 1), None);
        // Blank lines inside a block scalar and a block scalar at the end of the file (a hang
        // the first version of this pass had, found by fuzzing).
        let blank = "rows: |\n  [[[\n\n  [[[\n\n";
        assert_eq!(too_deep_flow(blank, 1), None);
        assert_eq!(too_deep_flow("rows: |\n\n", 1), None);
        assert_eq!(too_deep_flow("|\n\n", 1), None);
        assert_eq!(too_deep_flow("rows: >\n  x", 1), None);
        // After the block scalar ends, brackets count again.
        let after = "rows: |\n  [[[\nb: [[1]]\n";
        assert_eq!(
            too_deep_flow(after, 1),
            Some(after.find("[[1").unwrap() + 1)
        );
    }

    #[test]
    fn values_are_counted() {
        let text = "name: x\nmap:\n  rows: |\n    ...\nwaypoints:\n  - [1, 2]\n  - [3, 'a']\n";
        // name, x, map, rows, |, waypoints, then - [ 1 2 twice.
        assert_eq!(scan(text, 8, 14), None);
        let at = text.find("'a'").unwrap();
        assert_eq!(scan(text, 8, 13), Some(Exceeded::Values(at)));
        // Compact block nesting: each dash is a value.
        let dashes = format!("a:\n  {}x\n", "- ".repeat(10));
        assert_eq!(scan(&dashes, 8, 11), Some(Exceeded::Values(5 + 2 * 10)));
        assert_eq!(scan(&dashes, 8, 12), None);
    }

    #[test]
    fn a_huge_nesting_is_found_in_one_pass() {
        let deep = nested(1_000_000);
        assert_eq!(
            too_deep_flow(&deep, MAX_FLOW_DEPTH),
            Some(3 + MAX_FLOW_DEPTH)
        );
    }
}
