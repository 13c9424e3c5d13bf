//! One rule for read-only commands on invalid or cut-short files (docs/exit-codes.md): each shows
//! what the bytes allow, says on stderr what is wrong (the first problem being the one
//! `validate` reports first, in the same words), and exits 1 when it could do what was asked,
//! 2 when it could not, never 0.

mod common;

use std::path::Path;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::shared;

/// `validate`'s first problem, as every command words it: `at byte N: what [rule]`.
fn first_problem(dir: &Path, file: &str) -> Option<String> {
    let (_, out, err) = run(dir, &["validate", "--json", file]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|_| panic!("{err}"));
    let e = v["errors"].as_array()?.first()?;
    Some(format!(
        "at byte {}: {} [{}]",
        e["offset"],
        e["message"].as_str().unwrap(),
        e["rule"].as_str().unwrap()
    ))
}

/// `s` as the HTML page writes text.
fn html_escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The first tensor's name, when the file lists any.
fn a_tensor(dir: &Path, file: &str) -> String {
    let (_, out, _) = run(dir, &["tensors", "--json", file]);
    serde_json::from_str::<serde_json::Value>(out.trim())
        .ok()
        .and_then(|v| v["tensors"][0]["name"].as_str().map(String::from))
        .unwrap_or_else(|| "t".into())
}

/// Every read-only command on `file`.
fn commands(file: &str, tensor: &str) -> Vec<Vec<String>> {
    let c = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        c(&["info", file]),
        c(&["dump", file]),
        c(&["dump", "--json", file]),
        c(&["tensors", file]),
        c(&["layout", file]),
        c(&["meta", "get", file, "general.architecture"]),
        c(&["hash", file]),
        c(&["report", file, "-o", "r.html", "--force"]),
        c(&["export", file, "--tensor", tensor, "-o", "x.npy", "--force"]),
    ]
}

/// Checks the rule on `file` (in `dir`), which must be invalid.
fn check_invalid(dir: &Path, file: &str) {
    let first = first_problem(dir, file).unwrap_or_else(|| panic!("{file} is valid"));
    let tensor = a_tensor(dir, file);
    for args in commands(file, &tensor) {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(dir, &a);
        assert!(code == 1 || code == 2, "{a:?} exits {code}: {err}");
        assert!(!err.contains("panicked"), "{a:?}: {err}");
        // the first problem, said first: on stderr, or in info's status line
        let said = if a[0] == "info" && code == 1 {
            out.lines()
                .find(|l| l.trim_start().starts_with("status"))
                .unwrap_or("")
                .to_string()
        } else {
            err.lines().next().unwrap_or("").to_string()
        };
        assert!(
            said.contains(&first),
            "{a:?} (exit {code}) says first:\n  {said}\nvalidate says first:\n  {first}"
        );
        if code == 1 && matches!(a[0], "info" | "dump" | "tensors" | "layout") {
            assert!(!out.is_empty(), "{a:?} exits 1 but shows nothing");
        }
        if code == 1 && a[0] == "report" {
            // the page's status says the first problem in the same words, rule included
            let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
            let status = format!("INVALID {}", html_escaped(&first));
            assert!(html.contains(&status), "{file}: no {status:?} in the page");
        }
    }
}

#[test]
fn a_valid_file_exits_0_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    for args in commands(&f, "token_embd.weight") {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = run(dir.path(), &a);
        assert_eq!(code, 0, "{a:?}: {err}");
        assert!(err.is_empty(), "{a:?}: {err}");
    }
}

#[test]
fn a_file_cut_short_is_handled_alike_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let bytes = std::fs::read(dir.path().join(&f)).unwrap();
    // cut in the counts, in the metadata, in the tensor infos, in the data, one byte short
    for cut in [13, 100, 400, bytes.len() - 300, bytes.len() - 1] {
        let name = format!("cut{cut}.gguf");
        std::fs::write(dir.path().join(&name), &bytes[..cut]).unwrap();
        check_invalid(dir.path(), &name);
    }
}

#[test]
fn a_tensor_whose_bytes_are_all_there_is_exported_from_a_cut_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let bytes = std::fs::read(dir.path().join(&f)).unwrap();
    std::fs::write(dir.path().join("cut.gguf"), &bytes[..bytes.len() - 1]).unwrap();
    // the first tensor's data is complete; the last one's is not
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            "cut.gguf",
            "--tensor",
            "token_embd.weight",
            "-o",
            "a.npy",
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("[truncated]"), "{err}");
    assert!(dir.path().join("a.npy").exists());
    let (code, _, err) = run(
        dir.path(),
        &[
            "export",
            "cut.gguf",
            "--tensor",
            "output.weight",
            "-o",
            "b.npy",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("b.npy").exists());
    // dump needs only the header: it is whole
    let (code, out, _) = run(dir.path(), &["dump", "--json", "cut.gguf"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["tensors"].as_array().unwrap().len(), 7);
}

#[test]
fn the_malformed_corpus_is_handled_alike_by_every_command() {
    let Some(corpus) = shared::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut seen = 0;
    for sub in ["malformed", "synthetic/malformed"] {
        for f in shared::gguf_files(&corpus.join(sub)) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::copy(&f, dir.path().join(&name)).unwrap();
            check_invalid(dir.path(), &name);
            seen += 1;
        }
    }
    assert!(seen > 0);
}
