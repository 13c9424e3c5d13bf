//! The crates' `unsafe` policy, checked on their sources: the CLI forbids `unsafe` at its root;
//! ggufkit denies it at its root and forbids it in every module except those that need it (the
//! memory map, the SIMD kernels' folder and the reader's checked text, and the parents
//! `quant/mod.rs` and `read/mod.rs`, which only deny it (the root's `deny` or their own) because
//! they cannot forbid what a child allows), and every `unsafe` block or impl there says why it is
//! sound in a `// SAFETY:` comment right above it. The Python binding likewise: only `held.rs`
//! and `text.rs`. The test kit denies it at its root and allows it only in `heap.rs` (a counting
//! global allocator).

use std::path::{Path, PathBuf};

/// The modules allowed to use `unsafe`, relative to `crates/ggufkit/src`; a path ending in `/` is
/// a folder, every module in it allowed (each says so with its own `#![allow(unsafe_code)]`).
const ALLOWED: [&str; 3] = ["map.rs", "quant/simd/", "read/text.rs"];
/// The Python binding's modules allowed to use `unsafe`, relative to `python/src`.
const PY_ALLOWED: [&str; 2] = ["held.rs", "text.rs"];
/// The test kit's one module allowed to use `unsafe`, relative to `crates/ggufkit-testkit/src`.
const KIT_ALLOWED: &str = "heap.rs";
/// Modules that cannot forbid because a child allows: they deny instead.
const PARENTS: [&str; 3] = ["lib.rs", "quant/mod.rs", "read/mod.rs"];

fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn rel(p: &Path, root: &Path) -> String {
    p.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The lines (0-based) with an `unsafe` block or impl outside a comment.
fn unsafe_uses(lines: &[&str]) -> Vec<usize> {
    (0..lines.len())
        .filter(|&i| {
            let code = lines[i].split("//").next().unwrap_or("");
            code.contains("unsafe {") || code.contains("unsafe impl")
        })
        .collect()
}

/// Whether line `i` or the comments and attributes right above it say `SAFETY:`.
fn has_safety_above(lines: &[&str], i: usize) -> bool {
    lines[i].contains("SAFETY:")
        || lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                let t = l.trim_start();
                t.starts_with("//") || t.starts_with("#[")
            })
            .any(|l| l.contains("SAFETY:"))
}

#[test]
fn unsafe_code_only_where_allowed_and_justified() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    assert!(
        lib.contains("#![deny(unsafe_code)]"),
        "lib.rs denies unsafe"
    );
    let mut problems = Vec::new();
    for f in rs_files(&root) {
        let name = rel(&f, &root);
        let src = std::fs::read_to_string(&f).unwrap();
        let allowed = ALLOWED
            .iter()
            .any(|a| name == *a || a.ends_with('/') && name.starts_with(a));
        if allowed {
            assert!(src.contains("#![allow(unsafe_code)]"), "{name}");
        } else if PARENTS.contains(&name.as_str()) && src.contains("#![allow(unsafe_code)]") {
            problems.push(format!("{name}: allows unsafe"));
        } else if !PARENTS.contains(&name.as_str()) && !src.contains("#![forbid(unsafe_code)]") {
            problems.push(format!("{name}: no #![forbid(unsafe_code)]"));
        }
        let lines: Vec<&str> = src.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let is_unsafe = code.contains("unsafe {") || code.contains("unsafe impl");
            if !is_unsafe {
                continue;
            }
            if !allowed {
                problems.push(format!(
                    "{name}:{}: unsafe outside the allowed modules",
                    i + 1
                ));
                continue;
            }
            // the comment block (and attributes) right above, or the same line
            let mut j = i;
            let mut justified = line.contains("SAFETY:");
            while !justified && j > 0 {
                j -= 1;
                let t = lines[j].trim_start();
                if t.starts_with("//") || t.starts_with("#[") {
                    justified |= t.contains("SAFETY:");
                } else {
                    // a statement or block opener between: stop at the previous code line
                    // unless it is the `let x =` whose value is the unsafe block
                    break;
                }
            }
            if !justified {
                problems.push(format!(
                    "{name}:{}: unsafe without a // SAFETY: comment",
                    i + 1
                ));
            }
        }
    }
    let cli = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../gguf-cli/src/main.rs");
    let main = std::fs::read_to_string(&cli).unwrap();
    assert!(
        main.contains("#![forbid(unsafe_code)]"),
        "the CLI forbids unsafe"
    );
    let cli_src = cli.parent().unwrap().to_path_buf();
    for f in rs_files(&cli_src) {
        let src = std::fs::read_to_string(&f).unwrap();
        assert!(!src.contains("allow(unsafe_code)"), "{}", f.display());
    }
    // the test kit denies `unsafe` at its root; only its counting allocator (`heap.rs`, a
    // `GlobalAlloc`, an unsafe trait) allows it, every use justified; no other module allows it
    let kit = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ggufkit-testkit/src");
    for f in rs_files(&kit) {
        let name = rel(&f, &kit);
        let src = std::fs::read_to_string(&f).unwrap();
        if name == "lib.rs" {
            assert!(
                src.contains("#![deny(unsafe_code)]"),
                "the test kit denies unsafe"
            );
        }
        let allows = src.contains("allow(unsafe_code)");
        if name != KIT_ALLOWED && allows {
            problems.push(format!("ggufkit-testkit/src/{name}: allows unsafe"));
            continue;
        }
        let lines: Vec<&str> = src.lines().collect();
        for i in unsafe_uses(&lines) {
            if !has_safety_above(&lines, i) {
                problems.push(format!(
                    "ggufkit-testkit/src/{name}:{}: unsafe without SAFETY",
                    i + 1
                ));
            }
        }
    }
    // the Python binding: two modules (numpy arrays over the map, str objects) may use `unsafe`, every block
    // of it justified; every other module forbids it
    let py = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../python/src");
    for f in rs_files(&py) {
        let name = rel(&f, &py);
        let src = std::fs::read_to_string(&f).unwrap();
        if name == "lib.rs" {
            assert!(
                src.contains("#![deny(unsafe_code)]"),
                "python/src/lib.rs denies unsafe"
            );
            continue;
        }
        let lines: Vec<&str> = src.lines().collect();
        for i in unsafe_uses(&lines) {
            if !PY_ALLOWED.contains(&name.as_str()) {
                problems.push(format!(
                    "python/src/{name}:{}: unsafe outside {PY_ALLOWED:?}",
                    i + 1
                ));
            } else if !has_safety_above(&lines, i) {
                problems.push(format!(
                    "python/src/{name}:{}: unsafe without SAFETY",
                    i + 1
                ));
            }
        }
        if !PY_ALLOWED.contains(&name.as_str()) && !src.contains("#![forbid(unsafe_code)]") {
            problems.push(format!("python/src/{name}: no #![forbid(unsafe_code)]"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
