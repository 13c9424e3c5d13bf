//! `gguf convert --type T --all` against ggml's quantization vectors (`../shared/vectors/quant`):
//! converting a vector file to its own type turns every f32 `caseN.input` into exactly the bytes
//! of `caseN.expected`, as `ggml_quantize_chunk(imatrix = NULL)` wrote them; or, in the cases
//! where ggml changed since the vectors, into the bytes of the ggml ggufkit follows (their
//! sha256, `GGML_CHANGED_SINCE_VECTORS`). Every case is checked, through the command users run.

mod common;

use std::path::PathBuf;

use ggufkit::{quant, GgmlType, Gguf};
use ggufkit_testkit::shared::ggml_quant_expectation;
use sha2::{Digest, Sha256};

/// Vector types ggufkit cannot quantize (skipped, by name). Every type of the vectors has a
/// quantizer now; a type missing from ggufkit and not listed here fails the test.
const NO_QUANTIZER: &[&str] = &[];

#[test]
fn convert_type_all_reproduces_ggml_quant_vectors() {
    let Some(vectors) = ggufkit_testkit::shared::find("vectors/quant") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&vectors)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gguf"))
        .collect();
    paths.sort();
    let mut checked = 0;
    let mut skipped = Vec::new();
    for path in &paths {
        let g = Gguf::open(path).unwrap();
        let name = g.get_str("vectors.type").unwrap().to_owned();
        let ty = GgmlType::from_name(&name).unwrap();
        if NO_QUANTIZER.contains(&name.as_str()) {
            println!("SKIP {name}: no quantizer");
            skipped.push(name);
            continue;
        }
        assert!(quant::can_quantize(ty), "{name}: no quantizer");
        let out = dir.path().join(format!("{name}.gguf"));
        common::gguf(dir.path())
            .args([
                "convert".as_ref(),
                path.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
                "--type".as_ref(),
                name.as_ref(),
                "--all".as_ref(),
            ])
            .assert()
            .code(0);
        let o = Gguf::open(&out).unwrap();
        for case in 0..4 {
            let Some(want) = g.tensor(&format!("case{case}.expected")) else {
                continue;
            };
            let got = o
                .tensor(&format!("case{case}.input"))
                .unwrap_or_else(|| panic!("{name}: case{case}.input missing from the output"));
            assert_eq!(got.ggml_type().unwrap(), ty, "{name} case{case}: type");
            assert_eq!(got.shape(), want.shape(), "{name} case{case}: shape");
            let a = got.data().unwrap();
            match ggml_quant_expectation(&name, case, want.data().unwrap()) {
                Ok(b) => {
                    assert_eq!(a.len(), b.len(), "{name} case{case}: size");
                    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                        panic!(
                            "{name} case{case}: byte {i} (block {}) is {:#04x}, ggml wrote {:#04x}",
                            i / ty.type_size() as usize,
                            a[i],
                            b[i]
                        );
                    }
                }
                Err(sha) => {
                    let d: String = Sha256::digest(a)
                        .iter()
                        .map(|x| format!("{x:02x}"))
                        .collect();
                    assert_eq!(
                        d, sha,
                        "{name} case{case}: not the bytes of the ggml ggufkit follows"
                    );
                }
            }
            checked += 1;
        }
    }
    println!("{checked} cases checked, skipped: {skipped:?}");
    assert!(
        checked >= (paths.len() - skipped.len()) * 4 && checked >= 26 * 4,
        "only {checked} cases checked"
    );
}
