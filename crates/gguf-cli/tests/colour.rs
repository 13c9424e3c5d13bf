//! Colour on a terminal changes nothing but the escapes: with colour forced on
//! (`CLICOLOR_FORCE=1`), every human output is, once the escapes are removed, the same text as
//! without colour, so columns stay aligned.

use std::path::Path;

use assert_cmd::Command;
use ggufkit_testkit::fixtures::tiny_model;

/// The text without its ANSI escape sequences (`ESC [ ... letter`).
fn strip(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn stdout(dir: &Path, args: &[&str], colour: bool) -> String {
    let mut c = Command::cargo_bin("gguf").unwrap();
    c.current_dir(dir).args(args).env_remove("NO_COLOR");
    if colour {
        c.env("CLICOLOR_FORCE", "1");
    } else {
        c.env("NO_COLOR", "1");
    }
    String::from_utf8(c.output().unwrap().stdout).unwrap()
}

#[test]
fn colour_never_moves_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    for args in [
        vec!["info", f.as_str()],
        vec!["dump", f.as_str()],
        vec!["tensors", f.as_str()],
        vec!["validate", f.as_str()],
        vec!["layout", f.as_str()],
    ] {
        let plain = stdout(dir.path(), &args, false);
        let coloured = stdout(dir.path(), &args, true);
        assert!(!plain.contains('\x1b'), "{args:?}: NO_COLOR has escapes");
        if matches!(args[0], "info" | "dump" | "validate") {
            assert!(
                coloured.contains('\x1b'),
                "{args:?}: CLICOLOR_FORCE gave no colour"
            );
        }
        assert_eq!(strip(&coloured), plain, "{args:?}");
    }
}
