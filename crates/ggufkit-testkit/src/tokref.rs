//! llama.cpp's own answers for the tokenizer's differential tests: the cases of
//! `scripts/tokref/reference.py build` (random and adversarial text, id sequences) with what
//! `llama_tokenize` and `llama_detokenize` of node-llama-cpp's prebuilt llama.cpp returned,
//! cached outside the clone. Without node-llama-cpp the calling test [`skip`]s for
//! [`Need::NodeLlamaCpp`] (a failure when CI set it up).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::skip::{skip, Need};

/// Text to encode with both flags, and llama.cpp's ids.
pub struct EncodeCase {
    pub text: String,
    pub add_special: bool,
    pub parse_special: bool,
    pub expect: Vec<u32>,
}

/// Ids to decode with both flags, and llama.cpp's bytes.
pub struct DecodeCase {
    pub ids: Vec<u32>,
    pub remove_special: bool,
    pub unparse_special: bool,
    pub expect: Vec<u8>,
}

/// The cases of one vocabulary.
pub struct Reference {
    pub encode: Vec<EncodeCase>,
    pub decode: Vec<DecodeCase>,
}

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The vocabularies the differential tests run on: the 19 of `../shared/corpus/vocab` and the
/// Gemma 3 model ([`reference::gemma`](crate::reference::gemma); without it that part skips).
/// `None` (after a skip) without the corpus.
pub fn vocabularies() -> Option<Vec<PathBuf>> {
    let dir = crate::shared::find("corpus/vocab")?;
    let mut v = crate::shared::gguf_files(&dir);
    v.extend(crate::reference::gemma());
    Some(v)
}

/// llama.cpp's answers for `vocab`, made by the reference script once and read from its cache;
/// `None` after a skip when node-llama-cpp cannot be had here. A script that fails for another
/// reason panics: the harness is broken, which is not a skip.
pub fn reference(vocab: &Path) -> Option<Reference> {
    let node_modules = crate::reference::node_modules()?;
    let script = repo().join("scripts/tokref/reference.py");
    let python = std::env::var("GGUFKIT_TOKREF_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = Command::new(&python);
    cmd.arg(&script)
        .arg("--node-modules")
        .arg(&node_modules)
        .arg("build")
        .arg(vocab);
    if let Ok(seed) = std::env::var("GGUFKIT_TOKREF_SEED") {
        cmd.args(["--seed", &seed]);
    }
    if let Ok(n) = std::env::var("GGUFKIT_TOKREF_TEXTS") {
        cmd.args(["--texts", &n]);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            skip(
                Need::NodeLlamaCpp,
                format!("{python} (the harness's interpreter) cannot be run: {e}"),
            );
            return None;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => {}
        Some(3) => {
            skip(Need::NodeLlamaCpp, stderr.trim());
            return None;
        }
        _ => panic!(
            "{} build {} failed: {stderr}",
            script.display(),
            vocab.display()
        ),
    }
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Some(parse(&text, &path))
}

fn parse(text: &str, path: &str) -> Reference {
    use serde_json::Value;
    let mut r = Reference {
        encode: Vec::new(),
        decode: Vec::new(),
    };
    let flag =
        |v: &Value, k: &str, default: bool| v.get(k).and_then(Value::as_bool).unwrap_or(default);
    let ids = |v: &Value| -> Vec<u32> {
        v.as_array()
            .unwrap_or_else(|| panic!("{path}: ids are not an array"))
            .iter()
            .map(|x| {
                x.as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .expect("an id")
            })
            .collect()
    };
    for (i, line) in text.lines().enumerate().skip(1) {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1));
        if let Some(t) = v.get("text").and_then(Value::as_str) {
            r.encode.push(EncodeCase {
                text: t.to_string(),
                add_special: flag(&v, "add_special", true),
                parse_special: flag(&v, "parse_special", false),
                expect: ids(&v["expect_ids"]),
            });
        } else {
            let hex = v["expect_hex"].as_str().expect("expect_hex");
            r.decode.push(DecodeCase {
                ids: ids(&v["ids"]),
                remove_special: flag(&v, "remove_special", false),
                unparse_special: flag(&v, "unparse_special", false),
                expect: unhex(hex),
            });
        }
    }
    r
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// A short, readable form of a case's text for a difference report.
pub fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(120).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    format!("{s:?}")
}
