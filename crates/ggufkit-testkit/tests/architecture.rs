//! ARCHITECTURE.md stays true: every source file of the repository is named in it.
//!
//! The files checked: `crates/*/src/**`, `crates/*/benches/**`, `crates/*/examples/**`,
//! `python/src/**`, `python/ggufkit/**`, `scripts/**`, `fuzz/fuzz_targets/**` and `fuzz/*.sh`,
//! `docs/*.md`, `.ci/**` and `samples/**` (build outputs and caches aside: `target/`,
//! `__pycache__/`, `*.pyc`).
//!
//! The rule. A file is named when a code span of ARCHITECTURE.md (text between backticks),
//! read as a path and matched against the file's path from the repository's root at `/`
//! boundaries:
//! 1. is the file's path or a tail of it with at least one folder: `read/text.rs`,
//!    `cmd/convert.rs`, `crates/ggufkit/src/map.rs`; or
//! 2. is the file's name (`types.rs`), and another code span is a tail of the file's folder
//!    ending in `/` (`read/`, `crates/ggufkit/src/`): the folder is named, and the file in it; or
//! 3. ends in `/**`, and what comes before is a tail of one of the file's folders
//!    (`examples/**`, `cmd/meta/**`): the folder is described as a whole, every file below it
//!    included; or
//! 4. is a tail of the file's folder ending in `/`, and the file is that folder's root module
//!    (`mod.rs`, `lib.rs`, `main.rs`): describing a folder describes its root.
//!
//! So a new file is either named where its folder is described, or lives in a folder that
//! ARCHITECTURE.md describes as a whole.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text between backticks, span by span (fenced blocks excluded).
fn code_spans(md: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            spans.push(inside.trim().to_string());
        }
        // an odd backtick count leaves the last part open: it is not a span
    }
    spans
}

/// Whether `tail` is `path` or a tail of it at a `/` boundary.
fn is_tail(path: &str, tail: &str) -> bool {
    let tail = tail.trim_start_matches("./");
    !tail.is_empty()
        && (path == tail || path.ends_with(tail) && path[..path.len() - tail.len()].ends_with('/'))
}

/// Whether a code span names `path` by the module's rule.
fn named(path: &str, spans: &[String]) -> bool {
    let (folder, file) = match path.rsplit_once('/') {
        Some((d, f)) => (d, f),
        None => ("", path),
    };
    let folders: Vec<&str> = folder
        .char_indices()
        .filter(|&(_, c)| c == '/')
        .map(|(i, _)| &folder[..i])
        .chain(std::iter::once(folder))
        .filter(|f| !f.is_empty())
        .collect();
    let by_path = spans
        .iter()
        .any(|s| s.contains('/') && !s.ends_with('/') && is_tail(path, s));
    let by_folder_and_name = spans.iter().any(|s| s == file)
        && spans
            .iter()
            .filter_map(|s| s.strip_suffix('/'))
            .any(|d| is_tail(folder, d));
    let by_whole_folder = spans
        .iter()
        .filter_map(|s| s.strip_suffix("/**"))
        .any(|d| folders.iter().any(|f| is_tail(f, d)));
    let as_root = ["mod.rs", "lib.rs", "main.rs"].contains(&file)
        && spans
            .iter()
            .filter_map(|s| s.strip_suffix('/'))
            .any(|d| is_tail(folder, d));
    by_path || by_folder_and_name || by_whole_folder || as_root
}

/// Every file below `dir` (relative to the repository), build outputs and caches aside.
fn files_below(root: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = format!("{dir}/{name}");
        let Ok(ty) = e.file_type() else { continue };
        if ty.is_dir() {
            if name != "target" && name != "__pycache__" {
                files_below(root, &rel, out);
            }
        } else if !is_build_output(&name) {
            out.push(rel);
        }
    }
}

/// Files a build leaves among the sources (git ignores them): bytecode, and the native module
/// that `maturin develop` puts beside the Python package.
fn is_build_output(name: &str) -> bool {
    [".pyc", ".so", ".pyd", ".dylib"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// The source files the rule covers, sorted.
fn source_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/");
    for c in crates.flatten() {
        let name = c.file_name().to_string_lossy().into_owned();
        for sub in ["src", "benches", "examples"] {
            files_below(root, &format!("crates/{name}/{sub}"), &mut out);
        }
    }
    for dir in [
        "python/src",
        "python/ggufkit",
        "scripts",
        "fuzz/fuzz_targets",
        ".ci",
        "samples",
    ] {
        files_below(root, dir, &mut out);
    }
    for (dir, ext) in [("fuzz", ".sh"), ("docs", ".md")] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(ext) && e.path().is_file() {
                    out.push(format!("{dir}/{name}"));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_source_file_is_named_in_architecture_md() {
    let root = repo();
    let md = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let spans = code_spans(&md);
    let files = source_files(&root);
    assert!(
        files.len() > 100,
        "too few source files found: {}",
        files.len()
    );
    let missing: Vec<&String> = files.iter().filter(|f| !named(f, &spans)).collect();
    assert!(
        missing.is_empty(),
        "{} source files are not named in ARCHITECTURE.md (name each in a code span where its \
         folder is described, or describe its folder as a whole as `folder/**`; the rule is in \
         crates/ggufkit-testkit/tests/architecture.rs):\n  {}",
        missing.len(),
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn the_rule_matches_at_folder_boundaries() {
    let spans: Vec<String> = ["read/text.rs", "read/", "types.rs", "examples/**", "cmd/"]
        .map(String::from)
        .to_vec();
    // 1: a tail with a folder
    assert!(named("crates/ggufkit/src/read/text.rs", &spans));
    assert!(!named("crates/ggufkit/src/spread/text.rs", &spans));
    // 2: the name, in a named folder
    assert!(named("crates/ggufkit/src/read/types.rs", &spans));
    assert!(!named("crates/ggufkit/src/types.rs", &spans));
    // 3: a folder as a whole, at any depth below it
    assert!(named("crates/ggufkit/examples/walk.rs", &spans));
    assert!(named("crates/ggufkit/examples/deep/walk.rs", &spans));
    assert!(!named("crates/ggufkit/myexamples/walk.rs", &spans));
    // a folder named without `/**` does not cover its files, but its root module
    assert!(!named("crates/gguf-cli/src/cmd/convert.rs", &spans));
    assert!(named("crates/gguf-cli/src/cmd/mod.rs", &spans));
}

#[test]
fn code_spans_are_read_between_backticks_outside_fences() {
    let md = "a `x/y.rs` and `z/`\n```\n`not/this.rs`\n```\nodd `open";
    assert_eq!(code_spans(md), ["x/y.rs", "z/"]);
}
