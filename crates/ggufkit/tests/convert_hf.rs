//! The differential test of `convert`: tiny random-weight Hugging Face checkpoints of every
//! architecture of the table (scripts/hf_reference/make_checkpoints.py) converted by llama.cpp's
//! convert_hf_to_gguf.py at every --outtype, and by ggufkit; the files must agree. Where they
//! differ the test names the first differing key or tensor.
#![cfg(feature = "convert")]

use std::path::{Path, PathBuf};
use std::process::Command;

use ggufkit::convert::execute::convert_folder;
use ggufkit::convert::plan::ConvertOptions;
use ggufkit::convert::OutType;
use ggufkit::read::Gguf;
use ggufkit_testkit::reference;

/// The reference folder: `$GGUFKIT_HF_REFERENCE`, else what make_checkpoints.sh makes (cached).
fn reference_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("GGUFKIT_HF_REFERENCE").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    reference::python()?;
    reference::llama_cpp_src()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/hf_reference/make_checkpoints.sh");
    let out = Command::new("bash").arg(&script).output().ok()?;
    if !out.status.success() {
        ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::RefPython,
            format!(
                "make_checkpoints.sh failed: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ),
        );
        return None;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .map(PathBuf::from)
}

/// The first difference between `ours` and `theirs` in the pairs of `keys`, the tensor infos
/// and the tensor data; `None` when they agree.
fn first_difference(ours: &Gguf<'_>, theirs: &Gguf<'_>) -> Option<String> {
    let pairs = |g: &Gguf<'_>| -> Vec<(String, Vec<u8>)> {
        g.metadata()
            .map(|k| (k.key().into_owned(), k.raw.to_vec()))
            .collect()
    };
    let (our_keys, their_keys) = (pairs(ours), pairs(theirs));
    for (i, (a, b)) in our_keys.iter().zip(&their_keys).enumerate() {
        if a.0 != b.0 {
            return Some(format!(
                "pair {i}: key '{}' where the script has '{}'",
                a.0, b.0
            ));
        }
        if a.1 != b.1 {
            return Some(format!("key '{}': the values differ", a.0));
        }
    }
    if our_keys.len() != their_keys.len() {
        let n = our_keys.len().min(their_keys.len());
        let (who, extra) = if our_keys.len() > n {
            ("ours", &our_keys[n].0)
        } else {
            ("the script's", &their_keys[n].0)
        };
        return Some(format!("{who} has more pairs, first '{extra}'"));
    }
    let ot: Vec<_> = ours.tensors().collect();
    let tt: Vec<_> = theirs.tensors().collect();
    for (a, b) in ot.iter().zip(&tt) {
        if a.name() != b.name() {
            return Some(format!(
                "tensor '{}' where the script has '{}'",
                a.name(),
                b.name()
            ));
        }
        if a.type_id() != b.type_id() || a.shape() != b.shape() {
            return Some(format!(
                "tensor '{}': type {} shape {:?}, the script's type {} shape {:?}",
                a.name(),
                a.type_id(),
                a.shape(),
                b.type_id(),
                b.shape()
            ));
        }
        if a.data() != b.data() {
            let (da, db) = (a.data().unwrap_or(&[]), b.data().unwrap_or(&[]));
            let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return Some(format!(
                "tensor '{}': the data differ from byte {at}",
                a.name()
            ));
        }
    }
    if ot.len() != tt.len() {
        return Some(format!("{} tensors, the script {}", ot.len(), tt.len()));
    }
    None
}

/// Checkpoints the generator makes and the script converts whose architecture is not in our
/// table yet: each must be refused by name (never a wrong file), and is listed as not compared.
/// An entry that converts fails the test, so the list cannot outlive the gap.
const NOT_IN_THE_TABLE_YET: &[(&str, &str)] = &[];

#[test]
fn conversions_match_the_script() {
    let Some(dir) = reference_dir() else { return };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in cases["cases"].as_array().unwrap() {
        let case = case.as_str().unwrap();
        let folder = dir.join("models").join(case);
        if !folder.is_dir() {
            continue;
        }
        for t in cases["outtypes"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            let reference = dir.join("ref").join(format!("{case}.{t}.gguf"));
            if !reference.is_file() {
                continue;
            }
            let opts = ConvertOptions {
                outtype: t.parse::<OutType>().unwrap(),
                ..Default::default()
            };
            let out = tmp.path().join(format!("{case}.{t}.gguf"));
            if let Some((_, class)) = NOT_IN_THE_TABLE_YET.iter().find(|(c, _)| *c == case) {
                match convert_folder(&folder, &out, &opts, true, None) {
                    Err(e)
                        if e.to_string()
                            .contains(&format!("'{class}' is not supported")) =>
                    {
                        eprintln!("NOT COMPARED {case} --outtype {t}: {class} is not in the architecture table yet");
                    }
                    Err(e) => {
                        failures.push(format!("{case} --outtype {t}: refused otherwise: {e}"))
                    }
                    Ok(_) => failures.push(format!(
                        "{case} --outtype {t}: converts now: take it out of NOT_IN_THE_TABLE_YET"
                    )),
                }
                continue;
            }
            if let Err(e) = convert_folder(&folder, &out, &opts, true, None) {
                failures.push(format!("{case} --outtype {t}: {e}"));
                continue;
            }
            let ours = Gguf::open(&out).unwrap();
            let theirs = Gguf::open(&reference).unwrap();
            compared += 1;
            if let Some(d) = first_difference(&ours, &theirs) {
                failures.push(format!("{case} --outtype {t}: {d}"));
            } else if std::fs::read(&out).unwrap() != std::fs::read(&reference).unwrap() {
                failures.push(format!(
                    "{case} --outtype {t}: the bytes differ (header padding)"
                ));
            }
        }
    }
    eprintln!("compared {compared} conversions");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
