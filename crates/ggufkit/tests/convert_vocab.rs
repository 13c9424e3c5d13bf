//! The vocabulary builders of `convert/vocab` against llama.cpp's convert_hf_to_gguf.py: for each
//! tokenizer kind of scripts/hf_reference/tokenizers.py (real vocabularies rebuilt as Hugging Face
//! folders), the script's `--vocab-only` output (made and cached by
//! scripts/hf_reference/vocab_cases.sh) must hold exactly the `tokenizer.*` pairs the builder
//! returns, in the same order, with the same types and values. Where the script refuses a folder
//! (a BPE pre-tokenizer it does not know), the builder must refuse it too, naming the same hash.
#![cfg(feature = "convert")]
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ggufkit::convert::Kv;
use ggufkit::convert::{metadata, vocab};
use ggufkit::error::ConvertError;
use ggufkit::write::OwnedValue;
use ggufkit::Gguf;
use ggufkit_testkit::skip::{skip, Need};

/// The cases' folder (vocab_cases.sh's `dir=`), made once per test process.
fn cases() -> Option<PathBuf> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = Command::new("bash")
            .arg(root.join("scripts/hf_reference/vocab_cases.sh"))
            .output()
            .map_err(|e| format!("cannot run vocab_cases.sh: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        match stdout.lines().find_map(|l| l.strip_prefix("dir=")) {
            Some(d) if out.status.success() => Ok(PathBuf::from(d)),
            _ => Err(format!(
                "scripts/hf_reference/vocab_cases.sh failed: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )),
        }
    });
    match dir {
        Ok(d) => Some(d.clone()),
        Err(why) => {
            skip(Need::RefPython, why);
            None
        }
    }
}

/// The pairs of the script's output whose key `keep` accepts, in file order.
fn script_kvs(gguf: &Path, keep: impl Fn(&str) -> bool) -> Vec<Kv> {
    let g = Gguf::open(gguf).expect("the script's output opens");
    g.metadata()
        .filter(|kv| keep(&kv.key()))
        .map(|kv| {
            let v = OwnedValue::from_value(&kv.value).expect("owned");
            (kv.key().to_string(), v)
        })
        .collect()
}

fn config_vocab_size(folder: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(folder.join("config.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("vocab_size")?.as_u64().map(|n| n as usize)
}

fn describe(v: &OwnedValue) -> String {
    match v {
        OwnedValue::Array(a) => format!("array[{:?}; {}]", a.element_type(), a.len()),
        OwnedValue::String(s) if s.len() > 80 => format!("string({} bytes)", s.len()),
        other => format!("{other:?}"),
    }
}

/// Compares two key lists; the message names the first difference.
fn assert_same(kind: &str, ours: &[Kv], theirs: &[Kv]) {
    let keys = |kvs: &[Kv]| kvs.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(
        keys(ours),
        keys(theirs),
        "{kind}: the keys differ (ours, then the script's)"
    );
    for ((k, a), (_, b)) in ours.iter().zip(theirs) {
        if a == b {
            continue;
        }
        if let (OwnedValue::Array(x), OwnedValue::Array(y)) = (a, b) {
            assert_eq!(
                x.element_type(),
                y.element_type(),
                "{kind}: {k}: element type"
            );
            assert_eq!(x.len(), y.len(), "{kind}: {k}: length");
            let i = (0..x.len())
                .find(|&i| x.items()[i] != y.items()[i])
                .unwrap_or(0);
            panic!(
                "{kind}: {k}[{i}] differs: ours {:?}, the script's {:?}",
                x.items()[i],
                y.items()[i]
            );
        }
        panic!(
            "{kind}: {k} differs: ours {}, the script's {}",
            describe(a),
            describe(b)
        );
    }
}

/// The builder of the folder's architecture class (config.json's `architectures[0]`).
fn build(kind: &str, folder: &Path) -> Result<Vec<Kv>, ConvertError> {
    let n = config_vocab_size(folder);
    let text = std::fs::read_to_string(folder.join("config.json")).expect("config.json");
    let config: serde_json::Value = serde_json::from_str(&text).expect("config.json parses");
    let arch = config["architectures"][0]
        .as_str()
        .expect("an architecture");
    Ok(vocab::for_architecture(arch, folder, n)?
        .unwrap_or_else(|| panic!("{kind}: {arch} is not in the vocabulary table")))
}

fn check(kind: &str) {
    let Some(dir) = cases() else { return };
    let folder = dir.join(kind);
    let reference = dir.join(format!("{kind}.gguf"));
    let error = dir.join(format!("{kind}.error.txt"));
    if reference.is_file() {
        let ours = build(kind, &folder).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let theirs = script_kvs(&reference, |k| k.starts_with("tokenizer."));
        assert_same(kind, &ours, &theirs);
        // general.* from the folder's name and config (a vocab-only file counts no parameters);
        // the plan writes architecture, type, file_type and quantization_version
        let counts = ggufkit::convert::plan::ParamCounts::default();
        let opts = metadata::MetadataOptions::default();
        let ours = metadata::general_metadata(&folder, &opts, &counts)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let theirs = script_kvs(&reference, |k| {
            k.starts_with("general.")
                && ![
                    "general.architecture",
                    "general.type",
                    "general.file_type",
                    "general.quantization_version",
                ]
                .contains(&k)
        });
        assert_same(kind, &ours, &theirs);
        return;
    }
    let why = std::fs::read_to_string(&error).unwrap_or_default();
    if let Some(hash) = why
        .lines()
        .find_map(|l| l.split("chkhsh:").nth(1))
        .map(|h| h.trim().to_string())
    {
        // the script did not know the pre-tokenizer: neither may we, naming the same hash
        match build(kind, &folder) {
            Err(ConvertError::UnknownPreTokenizer { hash: ours, .. }) => {
                assert_eq!(ours, hash, "{kind}: the check text's hash")
            }
            other => panic!(
                "{kind}: the script refused the pre-tokenizer (hash {hash}), we gave {:?}",
                other.map(|kvs| kvs.len())
            ),
        }
        return;
    }
    skip(
        Need::RefPython,
        format!(
            "{kind}: no reference output in {}: {}",
            dir.display(),
            why.lines().last().unwrap_or("vocab_cases.sh made nothing")
        ),
    );
}

#[test]
fn llama_bpe() {
    check("llama-bpe");
}

#[test]
fn qwen2() {
    check("qwen2");
}

#[test]
fn gpt_2() {
    check("gpt-2");
}

#[test]
fn starcoder() {
    check("starcoder");
}

#[test]
fn deepseek_llm() {
    check("deepseek-llm");
}

#[test]
fn deepseek_coder() {
    check("deepseek-coder");
}

#[test]
fn falcon() {
    check("falcon");
}

#[test]
fn llama_spm() {
    check("llama-spm");
}

#[test]
fn llama_hf() {
    check("llama-hf");
}

#[test]
fn mistral() {
    check("mistral");
}

#[test]
fn phi3() {
    check("phi3");
}

#[test]
fn gemma3() {
    check("gemma3");
}
