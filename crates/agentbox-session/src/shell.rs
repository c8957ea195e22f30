//! Command lines the program prints for a designer to paste into a shell (a session to open, a
//! branch to run headless): a path or a `--param` as one shell word. It only formats text; it
//! runs nothing.

/// Text as one shell word: as it is when it holds only plain characters, else single-quoted
/// (`My Games/chase.yaml` is `'My Games/chase.yaml'`).
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./-+:=@%,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    /// A shell reads each word back as the text it was made from: plain text as it is, and
    /// text with spaces, quotes, `$`, `*` or nothing at all quoted.
    #[test]
    fn a_shell_reads_each_word_back_as_its_text() {
        let texts = [
            "scenes/chase.yaml",
            "/tmp/My Games/chase.yaml",
            "it's here",
            "$HOME/*.lua",
            "a=b c",
            "",
            "é",
        ];
        for text in texts {
            let word = shell_word(text);
            let read = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {word}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(read.stdout).unwrap(), text, "{word}");
        }
        assert_eq!(shell_word("scenes/chase.yaml"), "scenes/chase.yaml");
    }
}
