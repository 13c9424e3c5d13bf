//! ggml's own reference vectors (`../shared/vectors`): every dequantization, quantization and
//! conversion case must match bit for bit.
//!
//! The vectors live outside the repository; without them the tests skip (`ggufkit_testkit::skip`).

use std::path::{Path, PathBuf};

use ggufkit::quantize::encode::encode_rows;
use ggufkit::{quant, Endian, GgmlType, Gguf};
use sha2::{Digest, Sha256};

/// Quantizers not written yet. Every other type of `quant/` must match.
const KNOWN_MISSING_QUANT: &[&str] = &[];

use ggufkit_testkit::shared::ggml_quant_expectation;

fn vectors_dir() -> Option<PathBuf> {
    ggufkit_testkit::shared::find("vectors")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "gguf"))
        .collect();
    v.sort();
    v
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Compares f32 results bit for bit (NaN by class only when `nan_by_class`); returns a description
/// of the first difference.
fn compare_f32(got: &[f32], want: &[f32], nan_by_class: bool) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} values, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| {
            let (g, w) = (got[i], want[i]);
            !(g.to_bits() == w.to_bits() || (nan_by_class && g.is_nan() && w.is_nan()))
        })
        .collect();
    let &i = bad.first()?;
    Some(format!(
        "{} of {} values differ; first at {i} (row {}, element {}): got {:?} ({:#010x}), expected {:?} ({:#010x})",
        bad.len(),
        got.len(),
        i / 512,
        i % 512,
        got[i],
        got[i].to_bits(),
        want[i],
        want[i].to_bits()
    ))
}

fn compare_bytes(got: &[u8], want: &[u8], block: usize) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    let &i = bad.first()?;
    let blocks: std::collections::BTreeSet<usize> = bad.iter().map(|i| i / block).collect();
    Some(format!(
        "{} bytes in {} blocks differ; first at byte {i} (block {}, byte {}): got {:#04x}, expected {:#04x}",
        bad.len(),
        blocks.len(),
        i / block,
        i % block,
        got[i],
        want[i]
    ))
}

fn open(path: &Path) -> (Gguf<'static>, GgmlType) {
    let g = Gguf::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = g
        .get_str("vectors.type")
        .unwrap_or_else(|| panic!("{}: no vectors.type", path.display()))
        .to_owned();
    let ty = GgmlType::from_name(&name).unwrap_or_else(|| panic!("unknown type {name}"));
    (g, ty)
}

fn tensor_data<'a>(g: &'a Gguf<'static>, name: &str) -> Option<&'a [u8]> {
    g.tensor(name).and_then(|t| t.data())
}

#[test]
fn dequant_vectors() {
    let Some(dir) = vectors_dir() else { return };
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files(&dir.join("dequant")) {
        let (g, ty) = open(&path);
        for case in 0..4 {
            let (Some(input), Some(expected)) = (
                tensor_data(&g, &format!("case{case}.input")),
                tensor_data(&g, &format!("case{case}.expected")),
            ) else {
                continue;
            };
            let want = f32s(expected);
            let got = match quant::dequantize_to_vec(ty, input, Endian::Little) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!("dequant {ty} case{case}: {e}"));
                    continue;
                }
            };
            // case 3 has NaN scales: IEEE 754 leaves the sign of a NaN that arithmetic makes
            // unspecified, and compilers differ in it (ggml's build, ours with and without
            // optimisation), so NaNs there match by class
            if let Some(msg) = compare_f32(&got, &want, case == 3) {
                failures.push(format!("dequant {ty} case{case}: {msg}"));
            }
            // The parallel path must agree too.
            let mut par = vec![0f32; got.len()];
            quant::dequantize_par(ty, input, Endian::Little, &mut par).expect("par");
            if let Some(msg) = compare_f32(&par, &want, case == 3) {
                failures.push(format!("dequant_par {ty} case{case}: {msg}"));
            }
            checked += 1;
        }
    }
    println!("dequant: {checked} cases checked");
    assert!(checked >= 28 * 4, "only {checked} dequant cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `got` against case `case` of type `ty`'s `expected` bytes, or against the digest of today's
/// ggml where it changed since the vectors.
fn compare_quant(ty: GgmlType, case: usize, got: &[u8], expected: &[u8]) -> Option<String> {
    match ggml_quant_expectation(ty.name(), case, expected) {
        Ok(want) => compare_bytes(got, want, ty.type_size() as usize),
        Err(sha) => {
            let d: String = Sha256::digest(got)
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect();
            (d != sha).then(|| format!("sha256 {d}, the ggml ggufkit follows wrote {sha}"))
        }
    }
}

#[test]
fn quant_vectors() {
    let Some(dir) = vectors_dir() else { return };
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files(&dir.join("quant")) {
        let (g, ty) = open(&path);
        if !quant::can_quantize(ty) {
            if !KNOWN_MISSING_QUANT.contains(&ty.name()) {
                failures.push(format!("quant {ty}: no quantizer"));
            }
            continue;
        }
        let block = ty.type_size() as usize;
        for case in 0..4 {
            let Some(input) = tensor_data(&g, &format!("case{case}.input")) else {
                continue;
            };
            let src = f32s(input);
            if let Some(want) = tensor_data(&g, &format!("case{case}.expected")) {
                let mut got = Vec::new();
                match quant::quantize(ty, &src, &mut got) {
                    Ok(()) => failures.extend(
                        compare_quant(ty, case, &got, want)
                            .map(|m| format!("quant {ty} case{case}: {m}")),
                    ),
                    Err(e) => failures.push(format!("quant {ty} case{case}: {e}")),
                }
                let mut par = vec![0u8; src.len() / ty.block_size() as usize * block];
                quant::quantize_par(ty, &src, &mut par).expect("quantize_par");
                failures.extend(
                    compare_quant(ty, case, &par, want)
                        .map(|m| format!("quantize_par {ty} case{case}: {m}")),
                );
                // the quantization executor's seam (what `gguf convert --type` and `gguf
                // quantize` run), row by row of the tensor's 512 columns
                let mut rows = vec![0u8; par.len()];
                let n_per_row = g
                    .tensor(&format!("case{case}.input"))
                    .and_then(|t| t.shape().first().copied())
                    .expect("shape") as usize;
                match encode_rows(ty, &src, n_per_row, None, &mut rows) {
                    Ok(()) => failures.extend(
                        compare_quant(ty, case, &rows, want)
                            .map(|m| format!("encode_rows {ty} case{case}: {m}")),
                    ),
                    Err(e) => failures.push(format!("encode_rows {ty} case{case}: {e}")),
                }
                checked += 1;
            }
            if let Some(want) = tensor_data(&g, &format!("case{case}.expected_ref")) {
                let mut got = Vec::new();
                quant::quantize_ref(ty, &src, &mut got).expect("quantize_ref");
                if let Some(msg) = compare_bytes(&got, want, block) {
                    failures.push(format!("quant {ty} case{case}.expected_ref: {msg}"));
                }
                checked += 1;
            }
        }
    }
    println!("quant: {checked} cases checked");
    assert!(checked >= 26 * 4, "only {checked} quant cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conversion_vectors() {
    let Some(dir) = vectors_dir() else { return };
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files(&dir.join("conv")) {
        let g = Gguf::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        for case in 0..4 {
            let (Some(input), Some(expected)) = (
                tensor_data(&g, &format!("case{case}.input")),
                tensor_data(&g, &format!("case{case}.expected")),
            ) else {
                continue;
            };
            let msg = match stem {
                "f32_to_f16" | "f32_to_bf16" => {
                    let ty = if stem == "f32_to_f16" {
                        GgmlType::F16
                    } else {
                        GgmlType::BF16
                    };
                    let mut got = Vec::new();
                    quant::quantize(ty, &f32s(input), &mut got).expect("quantize");
                    compare_bytes(&got, expected, 2)
                }
                "f16_to_f32" => {
                    let got = quant::dequantize_to_vec(GgmlType::F16, input, Endian::Little)
                        .expect("dequantize");
                    compare_f32(&got, &f32s(expected), false)
                }
                other => panic!("unknown conversion file {other}"),
            };
            if let Some(msg) = msg {
                failures.push(format!("{stem} case{case}: {msg}"));
            }
            checked += 1;
        }
    }
    println!("conv: {checked} cases checked");
    assert!(checked >= 9, "only {checked} conversion cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
