//! Shared by the CLI tests: running the `gguf` binary with deterministic output. Fixtures and
//! the corpus come from `ggufkit-testkit`.
#![allow(dead_code)]

use std::path::Path;

use assert_cmd::Command;

/// `gguf` with colour off, run in `dir` so that file names in the output are relative.
pub fn gguf(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("gguf").expect("the gguf binary");
    c.env("NO_COLOR", "1").current_dir(dir);
    c
}

/// Runs `gguf args` in `dir` and returns (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = gguf(dir).args(args).output().expect("run gguf");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
