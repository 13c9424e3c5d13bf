//! `gguf convert --type T --all` against ggml's quantization vectors (`../shared/vectors/quant`):
//! converting a vector file to its own type turns every f32 `caseN.input` into exactly the bytes
//! of `caseN.expected`, as `ggml_quantize_chunk(imatrix = NULL)` wrote them.

mod common;

use std::path::PathBuf;

use ggufkit::{quant, GgmlType, Gguf};
use ggufkit_testkit::shared::GGML_CHANGED_SINCE_VECTORS;

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
            if GGML_CHANGED_SINCE_VECTORS.contains(&(name.as_str(), case)) {
                println!("{name} case{case}: ggml changed since the vectors (see quant_ggml.rs)");
                continue;
            }
            let got = o
                .tensor(&format!("case{case}.input"))
                .unwrap_or_else(|| panic!("{name}: case{case}.input missing from the output"));
            assert_eq!(got.ggml_type().unwrap(), ty, "{name} case{case}: type");
            assert_eq!(got.shape(), want.shape(), "{name} case{case}: shape");
            let (a, b) = (got.data().unwrap(), want.data().unwrap());
            assert_eq!(a.len(), b.len(), "{name} case{case}: size");
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "{name} case{case}: byte {i} (block {}) is {:#04x}, ggml wrote {:#04x}",
                    i / ty.type_size() as usize,
                    a[i],
                    b[i]
                );
            }
            checked += 1;
        }
    }
    println!("{checked} cases checked, skipped: {skipped:?}");
    assert!(
        checked + GGML_CHANGED_SINCE_VECTORS.len() >= (paths.len() - skipped.len()) * 4
            && checked + GGML_CHANGED_SINCE_VECTORS.len() >= 26 * 4,
        "only {checked} cases checked"
    );
}
