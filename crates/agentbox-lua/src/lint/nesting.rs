//! The linter's depth bound: a cheap scan of a script's tokens, before the recursive parser
//! and walker see it, that finds the first place where the syntax tree could nest deeper than
//! [`MAX_DEPTH`]. The parser (`full_moon`), the walker and the tree's drop each recurse once
//! per level, so an unbounded depth would overflow the stack and abort the process.
//!
//! The scan over-counts on purpose: each open bracket, `{`, `[`, `function`, `if`, `do` and
//! `repeat` is a level until its closer, and each operator (`+`, `..`, `and`, `not`, ...) is a
//! level until the expression around it ends (at `,`, `;`, `=` or a keyword). Left-associative
//! chains (`1 + 1 + ... + 1`), which Lua compiles in a loop at any length, count one level per
//! operator, as they nest in the tree. The tokens are read as Lua reads them (strings, long
//! brackets and comments are skipped whole) but nothing is checked: a source that does not
//! tokenize is left to the parser, which then refuses it.
//!
//! It only reads text.

/// The deepest a script's syntax tree may nest to be linted. Lua itself refuses brackets,
/// blocks and right-associative operators nested deeper than 200 (`LUAI_MAXCCALLS`), so only
/// long left-associative chains come near this.
pub(super) const MAX_DEPTH: usize = 1000;

/// Where the syntax tree of `source` could first nest deeper than [`MAX_DEPTH`]: the 1-based
/// line and column (in characters) of the token that goes past it, if one does.
pub(super) fn too_deep_at(source: &str) -> Option<(usize, usize)> {
    let mut scan = Scan {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
        column: 1,
    };
    // The operators counted at each open level; `depth` is the levels plus those operators.
    let mut levels: Vec<usize> = vec![0];
    let mut depth = 0usize;
    while let Some((token, line, column)) = scan.next_token() {
        match token {
            Token::Open => {
                levels.push(0);
                depth += 1;
            }
            Token::Close => {
                if levels.len() > 1 {
                    let ops = levels.pop().unwrap_or(0);
                    depth -= 1 + ops;
                }
            }
            Token::Operator => {
                if let Some(ops) = levels.last_mut() {
                    *ops += 1;
                }
                depth += 1;
            }
            Token::EndOfExpression => {
                if let Some(ops) = levels.last_mut() {
                    depth -= *ops;
                    *ops = 0;
                }
            }
            Token::Other => {}
        }
        if depth > MAX_DEPTH {
            return Some((line, column));
        }
    }
    None
}

/// What a token does to the depth.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Token {
    /// `(`, `[`, `{`, `function`, `if`, `do`, `repeat`.
    Open,
    /// `)`, `]`, `}`, `end`, `until`.
    Close,
    /// A unary or binary operator.
    Operator,
    /// `,`, `;`, `=` or a keyword that is no operator: the expression before it ended.
    EndOfExpression,
    /// A name, number, string or anything else.
    Other,
}

/// The source's characters and where the scan is.
struct Scan {
    chars: Vec<char>,
    at: usize,
    line: usize,
    column: usize,
}

impl Scan {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// The level of a long bracket opening here (`[[` is 0, `[==[` is 2), without moving.
    fn long_bracket_level(&self) -> Option<usize> {
        if self.peek(0) != Some('[') {
            return None;
        }
        let mut level = 0;
        while self.peek(1 + level) == Some('=') {
            level += 1;
        }
        (self.peek(1 + level) == Some('[')).then_some(level)
    }

    /// Skips a long bracket of `level` from its opening to its closing (or the end).
    fn skip_long(&mut self, level: usize) {
        for _ in 0..level + 2 {
            self.bump();
        }
        while let Some(c) = self.bump() {
            if c == ']' {
                let mut equals = 0;
                while self.peek(equals) == Some('=') {
                    equals += 1;
                }
                if equals == level && self.peek(equals) == Some(']') {
                    for _ in 0..=equals {
                        self.bump();
                    }
                    return;
                }
            }
        }
    }

    /// The next token and where it starts, or none at the end.
    fn next_token(&mut self) -> Option<(Token, usize, usize)> {
        loop {
            let c = self.peek(0)?;
            let (line, column) = (self.line, self.column);
            if c.is_whitespace() {
                self.bump();
                continue;
            }
            if c == '-' && self.peek(1) == Some('-') {
                self.bump();
                self.bump();
                match self.long_bracket_level() {
                    Some(level) => self.skip_long(level),
                    None => {
                        while self.peek(0).is_some_and(|c| c != '\n') {
                            self.bump();
                        }
                    }
                }
                continue;
            }
            let token = if let Some(level) = self.long_bracket_level() {
                self.skip_long(level);
                Token::Other
            } else if c == '"' || c == '\'' {
                self.bump();
                while let Some(s) = self.bump() {
                    if s == '\\' {
                        self.bump();
                    } else if s == c || s == '\n' {
                        break;
                    }
                }
                Token::Other
            } else if c.is_alphabetic() || c == '_' {
                let start = self.at;
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
                {
                    self.bump();
                }
                let word: String = self.chars[start..self.at].iter().collect();
                keyword(&word)
            } else if c.is_ascii_digit()
                || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit()))
            {
                while let Some(d) = self.peek(0) {
                    let exponent = matches!(d, 'e' | 'E' | 'p' | 'P')
                        && matches!(self.peek(1), Some('+' | '-'));
                    if exponent {
                        self.bump();
                        self.bump();
                    } else if d.is_alphanumeric() || d == '.' || d == '_' {
                        self.bump();
                    } else {
                        break;
                    }
                }
                Token::Other
            } else {
                self.symbol(c)
            };
            return Some((token, line, column));
        }
    }

    /// The punctuation token starting with `c`, consumed.
    fn symbol(&mut self, c: char) -> Token {
        self.bump();
        let next = self.peek(0);
        match c {
            '(' | '[' | '{' => Token::Open,
            ')' | ']' | '}' => Token::Close,
            ',' | ';' => Token::EndOfExpression,
            '=' if next == Some('=') => {
                self.bump();
                Token::Operator
            }
            '=' => Token::EndOfExpression,
            '.' if next == Some('.') => {
                self.bump();
                if self.peek(0) == Some('.') {
                    self.bump();
                    Token::Other
                } else {
                    Token::Operator
                }
            }
            '/' | '<' | '>' | '~' => {
                if matches!(next, Some('/' | '<' | '>' | '=')) {
                    self.bump();
                }
                Token::Operator
            }
            '+' | '-' | '*' | '%' | '^' | '#' | '&' | '|' => Token::Operator,
            _ => Token::Other,
        }
    }
}

/// What a word does to the depth.
fn keyword(word: &str) -> Token {
    match word {
        "function" | "if" | "do" | "repeat" => Token::Open,
        "end" | "until" => Token::Close,
        "and" | "or" | "not" => Token::Operator,
        "local" | "return" | "then" | "else" | "elseif" | "while" | "for" | "in" | "goto"
        | "break" => Token::EndOfExpression,
        _ => Token::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_or_nest_past_the_bound_is_found_at_its_token() {
        let chain = format!("return 1{}", " + 1".repeat(MAX_DEPTH + 5));
        // `return` then `1`, then operators from column 10 every 4 characters.
        assert_eq!(too_deep_at(&chain), Some((1, 10 + 4 * MAX_DEPTH)));
        let parens = format!("x =\n{}1", "(".repeat(MAX_DEPTH + 1));
        assert_eq!(too_deep_at(&parens), Some((2, MAX_DEPTH + 1)));
        let bodies = "function() return ".repeat(MAX_DEPTH + 1);
        assert!(too_deep_at(&bodies).is_some());
        let nots = format!("return {}x", "not ".repeat(MAX_DEPTH + 1));
        assert!(too_deep_at(&nots).is_some());
    }

    #[test]
    fn long_flat_scripts_and_skipped_text_are_not_deep() {
        let statements = "x = a + b * c\nf(x, y + 1)\n".repeat(MAX_DEPTH * 4);
        assert_eq!(too_deep_at(&statements), None);
        let list = format!("return {{{}}}", "1 + 1, ".repeat(MAX_DEPTH * 4));
        assert_eq!(too_deep_at(&list), None);
        let blocks = "if a then do f() end end\n".repeat(MAX_DEPTH * 4);
        assert_eq!(too_deep_at(&blocks), None);
        let hidden = "((((((((((+-+-+-+-".repeat(MAX_DEPTH);
        for text in [
            format!("-- {hidden}\nreturn 1"),
            format!("--[==[ {hidden} ]] ]==]return 1"),
            format!("return [[{hidden}]]"),
            format!("return '{hidden}\\'', \"{hidden}\""),
        ] {
            assert_eq!(too_deep_at(&text), None, "{}", &text[..40]);
        }
        assert_eq!(too_deep_at("return 1e+5 + 0x1p-3 + .5 + ..."), None);
    }
}
