//! What a new user meets first, in plain words: a missing file, a folder, a pipe or device, an
//! empty file, files that are not GGUF (with what they look like and what to do), an output in a
//! folder that does not exist. One line each, exit 2 (1 for `validate` of a readable file).

mod common;

use std::process::Stdio;

use common::run;
use ggufkit_testkit::encode::V;
use ggufkit_testkit::fixtures::tiny_model;

#[test]
fn inputs_that_are_no_gguf_file_are_named_plainly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    let cases: [(&str, &str); 3] = [
        ("missing.gguf", "missing.gguf: no such file"),
        ("folder", "folder: is a folder, not a file"),
        (
            "/dev/null",
            "/dev/null: is not a regular file (a pipe, a socket or a device)",
        ),
    ];
    for (file, says) in cases {
        for cmd in [
            vec!["info", file],
            vec!["dump", file],
            vec!["tensors", file],
            vec!["layout", file],
            vec!["hash", file],
            vec!["validate", file],
            vec!["meta", "get", file, "k"],
            vec!["convert", file, "-o", "o.gguf"],
            vec!["merge", file, "-o", "o.gguf"],
            vec!["carve", file, "-o", "o.gguf"],
            vec!["recipe", file],
            vec!["quantize", file, "o.gguf", "Q8_0"],
            vec!["audit", file],
            vec!["split", file, "--max-size", "1M", "-o", "o"],
            vec!["diff", file, file],
            vec!["export", file, "-o", "x.safetensors"],
            vec!["tensors", "--stats", file],
        ] {
            // convert and quantize take a Hugging Face checkpoint folder: a folder is refused
            // as one
            let says = match (cmd[0], file) {
                ("convert" | "quantize", "folder") => {
                    "folder: no config.json: not a Hugging Face checkpoint folder"
                }
                _ => says,
            };
            let (code, _, err) = run(dir.path(), &cmd);
            assert_eq!(code, 2, "{cmd:?}: {err}");
            assert!(err.starts_with(&format!("gguf: {says}")), "{cmd:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{cmd:?}: {err}");
            assert!(!err.contains("os error"), "{cmd:?}: {err}");
        }
    }
    // a pipe
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gguf"))
        .args(["info", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is not a regular file"), "{err}");
}

#[test]
fn inputs_besides_the_model_are_named_plainly_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    tiny_model().write(dir.path(), "m.gguf");
    for (file, says) in [
        ("missing.txt", "missing.txt: no such file"),
        ("folder", "folder: is a folder, not a file: name "),
    ] {
        for cmd in [
            vec!["hash", "--check", file],
            vec!["quantize", "m.gguf", "o.gguf", "Q8_0", "--imatrix", file],
            vec![
                "quantize",
                "m.gguf",
                "o.gguf",
                "Q8_0",
                "--tensor-type-file",
                file,
            ],
        ] {
            let (code, _, err) = run(dir.path(), &cmd);
            assert_eq!(code, 2, "{cmd:?}: {err}");
            assert!(err.starts_with(&format!("gguf: {says}")), "{cmd:?}: {err}");
            assert!(!err.contains("os error"), "{cmd:?}: {err}");
            assert!(!dir.path().join("o.gguf").exists(), "{cmd:?}");
        }
    }
}

#[test]
fn files_that_are_not_gguf_say_what_they_look_like() {
    let dir = tempfile::tempdir().unwrap();
    let gguf = tiny_model().encode();
    let mut zip_like = b"PK\x03\x04".to_vec();
    zip_like.extend([0u8; 60]);
    zip_like.extend(&gguf);
    let mut safetensors = 2u64.to_le_bytes().to_vec();
    safetensors.extend(b"{}");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.gguf", Vec::new(), "the file is empty (0 bytes)"),
        (
            "lfs.gguf",
            b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n".to_vec(),
            "it is a Git LFS pointer",
        ),
        (
            "page.gguf",
            b"<!DOCTYPE html><html></html>".to_vec(),
            "it is an HTML page",
        ),
        (
            "bom.gguf",
            [b"\xEF\xBB\xBF".to_vec(), gguf.clone()].concat(),
            "after a UTF-8 byte-order mark",
        ),
        (
            "z.zip",
            zip_like,
            "it is a zip archive with a GGUF inside from byte 64: `gguf carve",
        ),
        ("x.safetensors", safetensors, "it is a safetensors file"),
        (
            "old.bin",
            b"tjgg\x01\x00\x00\x00".to_vec(),
            "GGML/GGMF/GGJT",
        ),
        (
            "junk.bin",
            vec![0, 1, 2, 3, 4],
            "the file starts with the bytes 00 01 02 03",
        ),
    ];
    // a text tool's line endings: every \n byte (here in the chat template) became \r\n
    let templated = tiny_model()
        .kv(
            "tokenizer.chat_template",
            V::str("{% for m in messages %}\n{{ m }}\n{% endfor %}"),
        )
        .encode();
    let mut crlf = Vec::new();
    for &b in &templated {
        if b == b'\n' {
            crlf.push(b'\r');
        }
        crlf.push(b);
    }
    for (name, bytes, says) in cases {
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        let (code, _, err) = run(dir.path(), &["info", name]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        let (code, out, _) = run(dir.path(), &["validate", name]);
        assert_eq!(code, 1, "{name}");
        assert!(out.contains(says), "{name}: {out}");
    }
    std::fs::write(dir.path().join("crlf.gguf"), &crlf).unwrap();
    let says = "a text tool may have turned every \\n byte into \\r\\n";
    let (code, _, err) = run(dir.path(), &["info", "crlf.gguf"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.lines().next().unwrap_or("").contains(says), "{err}");
    let (code, out, _) = run(dir.path(), &["validate", "crlf.gguf"]);
    assert_eq!(code, 1);
    assert!(out.contains(says), "{out}");
    // where carve helps, it does
    let (code, _, err) = run(dir.path(), &["carve", "z.zip", "-o", "out.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(dir.path().join("out.gguf")).unwrap(), gguf);
}

#[test]
fn an_output_in_a_missing_folder_names_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    for cmd in [
        vec!["convert", f.as_str(), "-o", "no/such/x.gguf"],
        vec![
            "meta",
            "set",
            f.as_str(),
            "general.name",
            "x",
            "-o",
            "no/such/x.gguf",
        ],
        vec!["export", f.as_str(), "-o", "no/such/x.safetensors"],
        vec!["report", f.as_str(), "-o", "no/such/x.html"],
        vec!["carve", f.as_str(), "-o", "no/such/x.gguf"],
    ] {
        let (code, _, err) = run(dir.path(), &cmd);
        assert_eq!(code, 2, "{cmd:?}");
        assert!(
            err.starts_with("gguf: cannot write no/such/x.")
                && err.contains("the folder no/such does not exist"),
            "{cmd:?}: {err}"
        );
        assert!(!err.contains(".tmp"), "{cmd:?}: {err}");
    }
}

#[test]
fn truncation_inside_a_value_names_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = tiny_model().encode();
    let (_, out, _) = run(
        dir.path(),
        &[
            "validate",
            "--json",
            &tiny_model().write(dir.path(), "t.gguf"),
        ],
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["valid"], true);
    // cut the file at every byte of its metadata: once a pair's key is read, the message names it
    let (_, dump, _) = run(dir.path(), &["dump", "--json", "t.gguf"]);
    let d: serde_json::Value = serde_json::from_str(dump.trim()).unwrap();
    let keys: Vec<String> = d["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["key"].as_str().unwrap().to_string())
        .collect();
    let mut named = 0;
    for cut in 24..bytes.len().min(2000) {
        std::fs::write(dir.path().join("c.gguf"), &bytes[..cut]).unwrap();
        let (_, out, _) = run(dir.path(), &["validate", "--json", "c.gguf"]);
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let Some(e) = v["errors"].get(0) else {
            continue;
        };
        let m = e["message"].as_str().unwrap();
        if m.contains("value of") || m.contains("array") {
            assert!(!m.contains("key-value pair"), "cut at {cut}: {m}");
            assert!(
                keys.iter().any(|k| m.contains(&format!("key '{k}'"))),
                "cut at {cut}: {m}"
            );
            named += 1;
        }
    }
    assert!(named > 10, "{named} messages inside values");
}

#[test]
fn counts_in_summaries_read_in_the_singular_and_grouped() {
    let dir = tempfile::tempdir().unwrap();
    // 257 strings that are not UTF-8: one finding past the 256 kept
    let mut e = ggufkit_testkit::Encoder::header(3, 0, 1);
    e.key("bad", 9).u32(8).u64(257);
    for _ in 0..257 {
        e.str([0xffu8]);
    }
    std::fs::write(dir.path().join("bad.gguf"), e.build()).unwrap();
    let (code, out, _) = run(dir.path(), &["validate", "bad.gguf"]);
    assert_eq!(code, 1);
    assert!(out.contains("(1 more finding not shown)"), "{out}");
    // one difference
    let m = tiny_model();
    m.write(dir.path(), "a.gguf");
    m.kv("general.extra", V::str("x"))
        .write(dir.path(), "b.gguf");
    let (code, out, err) = run(dir.path(), &["diff", "a.gguf", "b.gguf"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("1 difference: header 0, metadata +1 -0 ~0"),
        "{out}"
    );
}
