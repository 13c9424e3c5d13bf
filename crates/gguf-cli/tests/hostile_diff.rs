//! Differential tests against two independent readers:
//!
//! - gguf-py (PyPI `gguf`, llama.cpp's Python reader) through `scripts/ggufpy_dump.py`: for every
//!   corpus file both read, keys, value types, values, tensor names, types, shapes and offsets
//!   equal ours, up to gguf-py's known differences, which are checked to be exactly those (and
//!   that we follow the spec on them).
//! - the executable spec (Kaitai Struct, `shared/spec/kaitai/ksy_dump.py`), over the corpus and
//!   over files our own encoder crafts: where Kaitai reads a file, our `dump --json` equals its
//!   dump; where it fails, our `validate` says invalid.
//!
//! Each skips with a printed reason when Python, the gguf-py venv (`scripts/setup-ggufpy.sh`),
//! the Kaitai setup (`shared/spec/kaitai/setup.sh`) or the shared corpus is missing. Files over
//! 3 MB are left out unless GGUFKIT_DIFF_MAX_BYTES says otherwise (the Python readers are slow).

use std::path::{Path, PathBuf};
use std::process::Command;

use ggufkit::{Endian, GgmlType};
use ggufkit_testkit::skip::{skip, Need};
use ggufkit_testkit::{reference, shared, Model, T, V};
use serde_json::Value as J;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared`, when its corpus is there.
fn shared() -> Option<PathBuf> {
    shared::corpus()?;
    Some(shared::root())
}

fn max_bytes() -> u64 {
    std::env::var("GGUFKIT_DIFF_MAX_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3 << 20)
}

fn corpus_files(shared: &Path) -> Vec<PathBuf> {
    shared::gguf_files(&shared.join("corpus"))
        .into_iter()
        .filter(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0) <= max_bytes())
        .collect()
}

/// Our `dump --json` of a file valid per the spec, or None when the file is invalid (exit 1: it
/// is dumped as far as the bytes allow, docs/exit-codes.md) or does not open (exit 2).
fn our_dump(file: &Path) -> Option<J> {
    let out = Command::new(env!("CARGO_BIN_EXE_gguf"))
        .args(["dump", "--json"])
        .arg(file)
        .output()
        .expect("run gguf");
    if !out.status.success() {
        let code = out.status.code();
        assert!(code == Some(1) || code == Some(2), "{}", file.display());
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).expect("dump --json is JSON"))
}

/// Our `validate --json` verdict and first error rule.
fn our_validate(file: &Path) -> (bool, Option<String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_gguf"))
        .args(["validate", "--json"])
        .arg(file)
        .output()
        .expect("run gguf");
    let v: J = serde_json::from_slice(&out.stdout).expect("validate --json is JSON");
    let rule = v["errors"][0]["rule"].as_str().map(str::to_string);
    (v["valid"].as_bool().expect("valid"), rule)
}

/// JSON equality where numbers are equal by value (an integer exactly, a float as a double).
fn same(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(p), Some(q), _, _) => p == q,
            (_, _, Some(p), Some(q)) => p == q,
            _ => x.as_f64() == y.as_f64(),
        },
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Where two dumps first differ, for the failure message.
fn first_difference(a: &J, b: &J, path: &str) -> String {
    match (a, b) {
        (J::Array(x), J::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if !same(p, q) {
                    return first_difference(p, q, &format!("{path}[{i}]"));
                }
            }
        }
        (J::Object(x), J::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if same(v, w) => {}
                    Some(w) => return first_difference(v, w, &format!("{path}.{k}")),
                    None => return format!("{path}.{k}: missing on the right"),
                }
            }
        }
        _ => {}
    }
    let cut = |v: &J| {
        let s = v.to_string();
        s.chars().take(200).collect::<String>()
    };
    format!("{path}: {} vs {}", cut(a), cut(b))
}

/// Runs a Python script of the reference `need` over files; one JSON object per file, in order.
/// `None` after a skip when the script cannot run.
fn run_python(
    need: Need,
    python: &Path,
    script: &Path,
    extra: &[&str],
    files: &[PathBuf],
) -> Option<Vec<J>> {
    let mut out = Vec::new();
    for chunk in files.chunks(64) {
        let o = Command::new(python)
            .arg(script)
            .args(extra)
            .args(chunk)
            .output()
            .ok()?;
        if o.status.code() == Some(2) || (o.stdout.is_empty() && !o.status.success()) {
            skip(
                need,
                format!(
                    "{} failed to run: {}",
                    script.display(),
                    String::from_utf8_lossy(&o.stderr)
                ),
            );
            return None;
        }
        for line in o.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            out.push(serde_json::from_slice(line).expect("one JSON object per line"));
        }
    }
    assert_eq!(out.len(), files.len());
    Some(out)
}

// ---- gguf-py -----------------------------------------------------------------------------------

fn ggufpy_python() -> Option<PathBuf> {
    reference::gguf_py()
}

/// gguf-py's known differences, applied to its dump so that what remains must be equal:
/// - a file without tensors: gguf-py pads its data offset to the alignment (the spec does not:
///   there is no data section to align);
/// - q8_1: gguf-py sizes a block as 40 bytes, ggml and the spec as 36.
///
/// Returns the differences it found, for the test to check that we follow the spec on them.
fn normalise_ggufpy(theirs: &mut J, ours: &J) -> Vec<String> {
    let mut notes = Vec::new();
    let align = ours["alignment"].as_u64().unwrap();
    if ours["tensors"].as_array().unwrap().is_empty() {
        let off = ours["tensor_data_offset"].as_u64().unwrap();
        let padded = off.div_ceil(align) * align;
        if theirs["tensor_data_offset"].as_u64() == Some(padded) && padded != off {
            notes.push(format!("tensorless data offset {padded} (ours {off})"));
            theirs["tensor_data_offset"] = off.into();
            theirs["file_size"] = ours["file_size"].clone();
        }
    }
    let mut fix_size = false;
    for (t, o) in theirs["tensors"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(ours["tensors"].as_array().unwrap())
    {
        if t["type"] == "q8_1" {
            let n: u64 = o["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .product();
            assert_eq!(
                o["size"].as_u64(),
                Some(n / 32 * 36),
                "ours follows the spec"
            );
            assert_eq!(
                t["size"].as_u64(),
                Some(n / 32 * 40),
                "gguf-py's 40-byte blocks"
            );
            notes.push("q8_1 sized with 40-byte blocks".into());
            t["size"] = o["size"].clone();
            fix_size = true;
        }
    }
    if fix_size {
        theirs["file_size"] = ours["file_size"].clone();
    }
    notes
}

#[test]
fn corpus_equals_ggufpy() {
    let (Some(shared), Some(python)) = (shared(), ggufpy_python()) else {
        return;
    };
    let files = corpus_files(&shared);
    let script = repo().join("scripts/ggufpy_dump.py");
    let Some(theirs) = run_python(Need::GgufPy, &python, &script, &[], &files) else {
        return;
    };
    let mut failures = Vec::new();
    let (mut equal, mut both_reject, mut stricter, mut ggufpy_rejects) = (0, 0, 0, Vec::new());
    for (file, rec) in files.iter().zip(theirs) {
        let ours = our_dump(file);
        match (rec["ok"].as_bool().unwrap(), ours) {
            (true, Some(ours)) => {
                let mut t = rec["dump"].clone();
                let notes = normalise_ggufpy(&mut t, &ours);
                if same(&t, &ours) {
                    equal += 1;
                    if !notes.is_empty() {
                        println!(
                            "  {}: known differences: {}",
                            file.display(),
                            notes.join("; ")
                        );
                    }
                } else {
                    failures.push(format!(
                        "{}: {}",
                        file.display(),
                        first_difference(&t, &ours, "gguf-py vs ours")
                    ));
                }
            }
            (true, None) => {
                // we are stricter than gguf-py: the spec must say invalid
                let (valid, rule) = our_validate(file);
                if valid {
                    failures.push(format!("{}: gguf-py reads it, we do not", file.display()));
                }
                println!(
                    "  {}: gguf-py reads it; invalid per the spec: {rule:?}",
                    file.display()
                );
                stricter += 1;
            }
            (false, Some(_)) => {
                let err = rec["error"].as_str().unwrap_or("").to_string();
                ggufpy_rejects.push(format!("{}: {err}", file.display()));
            }
            (false, None) => both_reject += 1,
        }
    }
    println!(
        "gguf-py differential: {equal} equal, {stricter} we reject per the spec, {both_reject} both reject, {} gguf-py rejects:",
        ggufpy_rejects.len()
    );
    for r in &ggufpy_rejects {
        println!("  {r}");
        // gguf-py's only known rejection of a valid file: it does not know q2_0 (id 42)
        if !r.contains("42) is not a valid GGMLQuantizationType") {
            failures.push(format!("gguf-py rejects a file we read: {r}"));
        }
    }
    assert!(equal > 10, "too few files compared: {equal}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ggufpy_known_differences() {
    let Some(python) = ggufpy_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // q8_1: 36-byte blocks (spec) against gguf-py's 40
    let m = Model {
        kvs: vec![(b"general.architecture".to_vec(), V::str("x"))],
        tensors: vec![
            T::new("q81", &[64, 2], GgmlType::Q8_1),
            T::new("f", &[4], GgmlType::F32),
        ],
        ..Model::default()
    };
    let q81 = dir.path().join("q8_1.gguf");
    std::fs::write(&q81, m.encode()).unwrap();
    // q2_0: unknown to gguf-py
    let m = Model {
        tensors: vec![T::new("q20", &[64], GgmlType::Q2_0)],
        ..Model::default()
    };
    let q20 = dir.path().join("q2_0.gguf");
    std::fs::write(&q20, m.encode()).unwrap();
    // no tensors, a header that does not end on the alignment
    let m = Model {
        kvs: vec![(b"k".to_vec(), V::U8(1))],
        ..Model::default()
    };
    let bare = dir.path().join("bare.gguf");
    std::fs::write(&bare, m.encode()).unwrap();

    let files = vec![q81.clone(), q20.clone(), bare.clone()];
    let Some(theirs) = run_python(
        Need::GgufPy,
        &python,
        &repo().join("scripts/ggufpy_dump.py"),
        &[],
        &files,
    ) else {
        return;
    };
    // q8_1
    let ours = our_dump(&q81).expect("we read q8_1");
    assert_eq!(ours["tensors"][0]["size"], 2 * 2 * 36);
    assert_eq!(
        ours["tensors"][1]["offset"], 160,
        "the next tensor follows 144 bytes, padded"
    );
    let mut t = theirs[0]["dump"].clone();
    assert_eq!(t["tensors"][0]["size"], 2 * 2 * 40);
    let notes = normalise_ggufpy(&mut t, &ours);
    assert_eq!(notes, ["q8_1 sized with 40-byte blocks"]);
    assert!(same(&t, &ours), "{}", first_difference(&t, &ours, ""));
    // q2_0
    assert_eq!(theirs[1]["ok"], false);
    let ours = our_dump(&q20).expect("we read q2_0");
    assert_eq!(ours["tensors"][0]["type"], "q2_0");
    assert_eq!(ours["tensors"][0]["size"], 18);
    // tensorless
    let ours = our_dump(&bare).expect("we read it");
    assert_eq!(ours["tensor_data_offset"], 38);
    assert_eq!(ours["file_size"], 38);
    assert_eq!(theirs[2]["dump"]["tensor_data_offset"], 64);
}

// ---- Kaitai ------------------------------------------------------------------------------------

fn kaitai(shared: &Path) -> Option<(PathBuf, PathBuf, String)> {
    let script = shared.join("spec/kaitai/ksy_dump.py");
    let (python, ksc) = reference::kaitai()?;
    Some((python, script, ksc.to_string_lossy().into_owned()))
}

/// Files our encoder crafts: valid ones of every kind, and damaged copies of them.
fn crafted(dir: &Path) -> Vec<PathBuf> {
    let mut models = Vec::new();
    let every_value = vec![
        (b"general.architecture".to_vec(), V::str("llama")),
        (b"u8".to_vec(), V::U8(255)),
        (b"i8".to_vec(), V::I8(-128)),
        (b"u16".to_vec(), V::U16(65535)),
        (b"i16".to_vec(), V::I16(-32768)),
        (b"u32".to_vec(), V::U32(u32::MAX)),
        (b"i32".to_vec(), V::I32(i32::MIN)),
        (b"f32".to_vec(), V::F32(0.1)),
        (b"f32.nan".to_vec(), V::F32(f32::NAN)),
        (b"f32.inf".to_vec(), V::F32(f32::NEG_INFINITY)),
        (b"f32.tiny".to_vec(), V::F32(f32::from_bits(1))),
        (b"bool".to_vec(), V::Bool(1)),
        (b"str".to_vec(), V::str("h\u{e9}llo \u{1f600} \"q\" \\ \n")),
        (b"u64".to_vec(), V::U64(u64::MAX)),
        (b"i64".to_vec(), V::I64(i64::MIN)),
        (b"f64".to_vec(), V::F64(-1e300)),
        (
            b"arr.f32".to_vec(),
            V::Arr(6, vec![V::F32(1.5), V::F32(-0.0), V::F32(3.4e38)]),
        ),
        (
            b"arr.str".to_vec(),
            V::Arr(8, vec![V::str(""), V::str("a"), V::str("<0x0A>")]),
        ),
        (b"arr.empty".to_vec(), V::Arr(10, vec![])),
        (
            b"arr.nested".to_vec(),
            V::Arr(
                9,
                vec![
                    V::Arr(5, vec![V::I32(-1), V::I32(2)]),
                    V::Arr(8, vec![V::str("x")]),
                    V::Arr(9, vec![V::Arr(7, vec![V::Bool(0)])]),
                ],
            ),
        ),
    ];
    let tensors: Vec<T> = GgmlType::supported()
        .map(|ty| {
            let b = ty.block_size();
            T::new(&format!("t.{}", ty.name()), &[b, 2], ty)
        })
        .collect();
    for endian in [Endian::Little, Endian::Big] {
        for align in [1u64, 32, 64] {
            let mut kvs = every_value.clone();
            if align != 32 {
                kvs.push((b"general.alignment".to_vec(), V::U32(align as u32)));
            }
            models.push(Model {
                endian,
                alignment: align,
                kvs,
                tensors: tensors.clone(),
                ..Model::default()
            });
        }
    }
    models.push(Model::default());
    models.push(Model {
        version: 2,
        tensors: vec![
            T::new("scalar", &[], GgmlType::F32),
            T::new("z", &[0, 3], GgmlType::F16),
        ],
        ..Model::default()
    });
    let mut out = Vec::new();
    for (i, m) in models.iter().enumerate() {
        let b = m.encode();
        let mut variants = vec![b.clone()];
        // damaged copies: cut at a few places, one byte changed at a few places
        for k in 1..6 {
            variants.push(b[..b.len() * k / 6].to_vec());
            let mut c = b.clone();
            let at = b.len() * k / 7;
            c[at] ^= 0x81;
            variants.push(c);
        }
        for (j, v) in variants.iter().enumerate() {
            let p = dir.join(format!("m{i}-{j}.gguf"));
            std::fs::write(&p, v).unwrap();
            out.push(p);
        }
    }
    out
}

/// Where Kaitai reads a file we must too (or name one of the rules the executable spec cannot
/// see: duplicates, exact size arithmetic) and dump it identically; where it fails, we must say
/// invalid.
fn check_against_kaitai(files: &[PathBuf], recs: &[J]) -> (usize, usize, Vec<String>) {
    let (mut equal, mut invalid) = (0, 0);
    let mut failures = Vec::new();
    for (file, rec) in files.iter().zip(recs) {
        if rec["kaitai_ok"].as_bool().unwrap() {
            match our_dump(file) {
                Some(ours) => {
                    if same(&rec["dump"], &ours) {
                        equal += 1;
                    } else {
                        failures.push(format!(
                            "{}: {}",
                            file.display(),
                            first_difference(&rec["dump"], &ours, "kaitai vs ours")
                        ));
                    }
                }
                None => {
                    let (_, rule) = our_validate(file);
                    let unseen = ["key.duplicate", "tensor.duplicate", "tensor.size"];
                    if !rule.as_deref().is_some_and(|r| unseen.contains(&r)) {
                        failures.push(format!(
                            "{}: Kaitai reads it, we reject it with {rule:?}",
                            file.display()
                        ));
                    }
                }
            }
        } else {
            let (valid, _) = our_validate(file);
            if valid {
                failures.push(format!(
                    "{}: Kaitai fails ({}), we say valid",
                    file.display(),
                    rec["error"]
                ));
            } else {
                invalid += 1;
            }
        }
    }
    (equal, invalid, failures)
}

#[test]
fn corpus_and_crafted_files_agree_with_kaitai() {
    let Some(shared) = shared() else {
        return;
    };
    let Some((python, script, ksc)) = kaitai(&shared) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = corpus_files(&shared);
    let n_corpus = files.len();
    files.extend(crafted(dir.path()));
    let Some(recs) = run_python(Need::Kaitai, &python, &script, &["--ksc", &ksc], &files) else {
        return;
    };
    let (equal, invalid, failures) = check_against_kaitai(&files, &recs);
    println!(
        "Kaitai differential over {n_corpus} corpus and {} crafted files: {equal} dumps equal, {invalid} invalid for both",
        files.len() - n_corpus
    );
    assert!(equal > 20, "too few files compared: {equal}");
    assert!(invalid > 20, "too few invalid files: {invalid}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
