//! `gguf tokenize` and `gguf detokenize`: the forms agree with each other and with the batch
//! modes, the input comes from the argument, `--file` (bytes exactly) or stdin, bad input is a
//! clear error, and the answers are llama.cpp's (its cached reference, `scripts/tokref/`).

mod common;

use std::path::{Path, PathBuf};

use common::gguf;
use ggufkit_testkit::shared;
use ggufkit_testkit::tokref::reference;
use serde_json::Value;

fn vocab(name: &str) -> Option<PathBuf> {
    shared::find(&format!("corpus/vocab/ggml-vocab-{name}.gguf"))
}

fn out(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let o = gguf(Path::new("."))
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("run gguf");
    (
        o.status.code().unwrap_or(-1),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let (code, stdout, err) = out(args, stdin);
    assert_eq!(code, 0, "gguf {args:?}: {err}");
    String::from_utf8(stdout).expect("UTF-8 output")
}

fn ids_of(line: &str) -> Vec<u32> {
    line.split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect()
}

#[test]
fn the_forms_and_the_sources_agree() {
    let Some(v) = vocab("llama-spm") else { return };
    let v = v.to_str().unwrap();
    let text = "Hello world! <s> 12345 naïve\n";
    let ids = ids_of(&ok(&["tokenize", v, text, "--ids"], b""));
    assert!(!ids.is_empty());
    // the count, the JSON and the table say the same
    assert_eq!(
        ok(&["tokenize", v, text, "--count"], b"").trim(),
        ids.len().to_string()
    );
    let j: Value = serde_json::from_str(&ok(&["tokenize", v, text, "--json"], b"")).unwrap();
    let jids: Vec<u32> = j["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(jids, ids);
    assert_eq!(j["pieces"].as_array().unwrap().len(), ids.len());
    let table = ok(&["tokenize", v, text], b"");
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(
        rows[0].split_whitespace().collect::<Vec<_>>(),
        ["id", "piece"]
    );
    assert_eq!(rows.len(), ids.len() + 2, "{table}");
    assert!(
        table.ends_with(&format!("{} tokens\n", ids.len())),
        "{table}"
    );
    // stdin and --file (bytes exactly: the trailing newline is a token of its own)
    assert_eq!(ids_of(&ok(&["tokenize", v, "--ids"], text.as_bytes())), ids);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.txt");
    std::fs::write(&f, text).unwrap();
    assert_eq!(
        ids_of(&ok(
            &["tokenize", v, "--ids", "--file", f.to_str().unwrap()],
            b""
        )),
        ids
    );
    let trimmed = ids_of(&ok(&["tokenize", v, text.trim_end(), "--ids"], b""));
    assert_ne!(trimmed, ids, "the newline was dropped somewhere");
    // the special flags change the answer where they should
    let bos = ids[0];
    let plain = ids_of(&ok(
        &["tokenize", v, text, "--ids", "--no-add-special"],
        b"",
    ));
    assert_eq!(plain, ids[1..], "llama-spm adds only a BOS");
    let parsed = ids_of(&ok(&["tokenize", v, text, "--ids", "--parse-special"], b""));
    assert!(parsed.len() < ids.len() && parsed[0] == bos);
    // and detokenize takes the ids back, from arguments, stdin or a batch line
    let id_args: Vec<String> = parsed.iter().map(u32::to_string).collect();
    let mut args = vec!["detokenize", v, "--unparse-special"];
    args.extend(id_args.iter().map(String::as_str));
    let back = ok(&args, b"");
    assert!(
        back.starts_with("<s> Hello world! <s>") && back.ends_with(" 12345 naïve\n"),
        "{back:?}"
    );
    assert_eq!(
        ok(
            &["detokenize", v, "--unparse-special"],
            id_args.join(" ").as_bytes()
        ),
        back
    );
    assert_eq!(
        ok(
            &["detokenize", v, "--unparse-special"],
            id_args.join(",\n").as_bytes()
        ),
        back
    );
    let line = format!(
        "{{\"ids\": [{}], \"unparse_special\": true}}\n",
        id_args.join(",")
    );
    let j: Value =
        serde_json::from_str(&ok(&["detokenize", v, "--jsonl"], line.as_bytes())).unwrap();
    assert_eq!(j["text"], Value::String(back));
}

#[test]
fn bad_input_is_a_clear_error() {
    let Some(v) = vocab("llama-spm") else { return };
    let v = v.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.txt");
    std::fs::write(&f, b"good \xe9t\xc3").unwrap();
    let (code, _, err) = out(&["tokenize", v, "--file", f.to_str().unwrap()], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("not UTF-8") && err.contains("byte offset 5"),
        "{err}"
    );
    let (code, _, err) = out(&["tokenize", v], b"abc\xff");
    assert_eq!(code, 2);
    assert!(
        err.contains("standard input") && err.contains("byte offset 3"),
        "{err}"
    );
    let (code, _, err) = out(&["detokenize", v, "1", "32000"], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("32000") && err.contains("out of range"),
        "{err}"
    );
    let (code, _, err) = out(&["detokenize", v], b"1 x2");
    assert_eq!(code, 2);
    assert!(err.contains("'x2'"), "{err}");
    // a file without a tokenizer says which key is missing
    let empty = ggufkit_testkit::Model::new()
        .kv("general.architecture", ggufkit_testkit::V::str("llama"))
        .write(dir.path(), "empty.gguf");
    let empty = dir.path().join(empty);
    let (code, _, err) = out(&["tokenize", empty.to_str().unwrap(), "x"], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("tokenizer.ggml"), "{err}");
}

#[test]
fn jsonl_answers_every_line_in_order() {
    let Some(v) = vocab("phi-3") else { return };
    let v = v.to_str().unwrap();
    // more lines than a chunk, mixed with errors, flags per line and from the options
    let mut input = Vec::new();
    let mut want = Vec::new();
    for i in 0..10_000 {
        match i % 7 {
            3 => {
                input.extend_from_slice(b"{\"text\": 5}\n");
                want.push(None);
            }
            5 => {
                input.extend_from_slice(b"{\"text\": \"\xff\"}\n");
                want.push(None);
            }
            _ => {
                let t = format!("line {i}: <|user|> {}", "x".repeat(i % 13));
                let add = i % 2 == 0;
                let line =
                    serde_json::json!({"text": t, "add_special": add, "parse_special": i % 3 == 0});
                input.extend_from_slice(line.to_string().as_bytes());
                input.push(b'\n');
                want.push(Some((t, i % 3 == 0)));
            }
        }
    }
    let got = ok(&["tokenize", v, "--jsonl"], &input);
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), want.len());
    for (i, (line, w)) in lines.iter().zip(&want).enumerate() {
        let j: Value = serde_json::from_str(line).unwrap();
        match w {
            None => {
                let e = j["error"]
                    .as_str()
                    .unwrap_or_else(|| panic!("line {}: {line}", i + 1));
                assert!(e.starts_with(&format!("line {}:", i + 1)), "{e}");
            }
            Some((t, _)) if i % 97 == 0 => {
                // spot checks against the single-text form
                let mut args = vec!["tokenize", v, t.as_str(), "--ids"];
                if i % 2 != 0 {
                    args.push("--no-add-special");
                }
                if i % 3 == 0 {
                    args.push("--parse-special");
                }
                let ids: Vec<u64> = ids_of(&ok(&args, b"")).into_iter().map(u64::from).collect();
                let got: Vec<u64> = j["ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect();
                assert_eq!(got, ids, "line {}", i + 1);
            }
            Some(_) => assert!(j["ids"].is_array(), "{line}"),
        }
    }
    // detokenize --jsonl takes the ids back
    let first: Value = serde_json::from_str(lines[1]).unwrap();
    let req = serde_json::json!({"ids": first["ids"], "remove_special": true});
    let back = ok(
        &["detokenize", v, "--jsonl"],
        format!("{req}\n{{\"ids\": [999999999]}}\n").as_bytes(),
    );
    let back: Vec<Value> = back
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        back[0]["text"],
        Value::String(match &want[1] {
            Some((t, _)) => t.clone(),
            None => unreachable!(),
        })
    );
    assert!(back[1]["error"].as_str().unwrap().contains("999999999"));
}

/// The CLI gives llama.cpp's answers: a slice of the reference cases of each vocabulary, through
/// the batch modes (one process per vocabulary and mode).
#[test]
fn batch_modes_give_llama_cpp_answers() {
    let Some(dir) = shared::find("corpus/vocab") else {
        return;
    };
    let mut diffs = 0;
    let mut unsupported = 0;
    // a model the library does not run yet answers every line with this error (the library's
    // differential test counts those apart, as here)
    let unsupported_line = |line: &str| line.contains("is not available in this build");
    for path in shared::gguf_files(&dir) {
        let Some(r) = reference(&path) else {
            return;
        };
        let v = path.to_str().unwrap();
        let enc: Vec<_> = r.encode.iter().step_by(7).collect();
        let input: String = enc
            .iter()
            .map(|c| serde_json::json!({"text": c.text, "add_special": c.add_special, "parse_special": c.parse_special}).to_string() + "\n")
            .collect();
        let got = ok(&["tokenize", v, "--jsonl"], input.as_bytes());
        for (c, line) in enc.iter().zip(got.lines()) {
            let j: Value = serde_json::from_str(line).unwrap();
            let ids: Option<Vec<u32>> = j["ids"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_u64().unwrap() as u32).collect());
            if unsupported_line(line) {
                unsupported += 1;
            } else if ids.as_ref() != Some(&c.expect) {
                diffs += 1;
                println!("{v}: {:?}: ours {line}, llama.cpp {:?}", c.text, c.expect);
            }
        }
        let dec: Vec<_> = r.decode.iter().step_by(5).collect();
        let input: String = dec
            .iter()
            .map(|c| serde_json::json!({"ids": c.ids, "remove_special": c.remove_special, "unparse_special": c.unparse_special}).to_string() + "\n")
            .collect();
        let got = ok(&["detokenize", v, "--jsonl"], input.as_bytes());
        for (c, line) in dec.iter().zip(got.lines()) {
            let j: Value = serde_json::from_str(line).unwrap();
            let want = match std::str::from_utf8(&c.expect) {
                Ok(s) => serde_json::json!({"text": s}),
                Err(_) => {
                    serde_json::json!({"text": {"hex": c.expect.iter().map(|b| format!("{b:02x}")).collect::<String>()}})
                }
            };
            if unsupported_line(line) {
                unsupported += 1;
            } else if j != want {
                diffs += 1;
                println!("{v}: {:?}: ours {line}, llama.cpp {want}", c.ids);
            }
        }
    }
    println!("{diffs} differences, {unsupported} lines of models the library does not run yet");
    assert_eq!(diffs, 0, "the CLI differs from llama.cpp (above)");
}
