//! The integration tests are two binaries, `suite` and `window` (see `main.rs`), and Cargo
//! builds only what their `main.rs` declares (`autotests = false` in the root manifest): a test
//! file that no `main.rs` names is never compiled, so its tests could never fail. This checks
//! that every test file is a declared module and that none sits directly under `tests/`.

use crate::common;
use std::collections::BTreeSet;
use std::path::Path;

/// The `.rs` files of a folder, by name without the extension.
fn rust_files(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// The modules a `main.rs` declares (`mod NAME;`).
fn declared_modules(main: &str) -> BTreeSet<String> {
    main.lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_test_file_is_a_module_of_one_of_the_two_binaries() {
    let tests = common::root().join("tests");
    for binary in ["suite", "window"] {
        let dir = tests.join(binary);
        let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
        let declared = declared_modules(&main);
        let mut files = rust_files(&dir);
        assert!(files.remove("main"), "tests/{binary}/main.rs");
        assert!(files.len() > 5, "tests/{binary} holds the tests: {files:?}");
        let missing: Vec<&String> = files.difference(&declared).collect();
        assert!(
            missing.is_empty(),
            "tests/{binary}/main.rs must declare these modules, or they never run: {missing:?}"
        );
    }
    let loose = rust_files(&tests);
    assert!(
        loose.is_empty(),
        "test files directly under tests/ are not built (autotests = false); make them modules \
         of tests/suite or tests/window: {loose:?}"
    );
}
