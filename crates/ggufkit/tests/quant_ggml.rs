//! Quantization against ggml beyond `../shared/vectors`: the iq1_m tie vectors
//! (`../shared/vectors/quantize/iq1_m-tie`), a committed fixture of f16-rounded inputs for every
//! quantizer with a search, and (when `scripts/ggml-harness.sh` has built it) a differential run
//! against ggml's own `ggml_quantize_chunk`, with and without importance weights.

use std::path::PathBuf;

use ggufkit::{quant, GgmlType, Gguf};

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// ggml's iq1_m bytes for two f16-rounded rows where an exact tie between candidate splits must
/// be broken as ggml's prefix-sum search breaks it.
#[test]
fn iq1_m_tie_vectors() {
    let Some(dir) = ggufkit_testkit::shared::find("vectors/quantize/iq1_m-tie") else {
        return;
    };
    let g = Gguf::open(dir.join("source.gguf")).expect("source.gguf");
    for name in ["r0.weight", "r1.weight"] {
        let t = g.tensor(name).unwrap_or_else(|| panic!("no {name}"));
        let x = f32s(t.data().expect("data"));
        let want = std::fs::read(dir.join(format!("{name}.iq1_m"))).expect("expected bytes");
        let mut got = Vec::new();
        quant::quantize(GgmlType::IQ1_M, &x, &mut got).expect("quantize");
        assert_eq!(got, want, "{name}: iq1_m differs from ggml");
    }
}

/// The `quantize_chunk` program of `scripts/ggml-harness.sh`, or `None` after a skip.
fn harness() -> Option<PathBuf> {
    ggufkit_testkit::reference::ggml_harness()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// ggml's `ggml_quantize_chunk(ty, src, dst, 0, nrows, n_per_row, imatrix)`, run by the harness.
fn ggml_quantize(
    exe: &std::path::Path,
    ty: GgmlType,
    src: &[f32],
    n_per_row: usize,
    imatrix: Option<&[f32]>,
) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = dir.path().join("src.f32");
    std::fs::write(&s, f32_bytes(src)).expect("write src");
    let w = match imatrix {
        Some(im) => {
            let w = dir.path().join("imatrix.f32");
            std::fs::write(&w, f32_bytes(im)).expect("write imatrix");
            w.display().to_string()
        }
        None => "-".to_string(),
    };
    let o = dir.path().join("out.bin");
    let status = std::process::Command::new(exe)
        .arg(ty.id().to_string())
        .arg((src.len() / n_per_row).to_string())
        .arg(n_per_row.to_string())
        .arg(&s)
        .arg(&w)
        .arg(&o)
        .status()
        .expect("run quantize_chunk");
    assert!(status.success(), "quantize_chunk {ty} failed: {status}");
    std::fs::read(&o).expect("read output")
}

/// The first differing block, as a message.
fn first_diff(got: &[u8], want: &[u8], block: usize) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    let &i = bad.first()?;
    let blocks: std::collections::BTreeSet<usize> = bad.iter().map(|i| i / block).collect();
    Some(format!(
        "{} bytes in {} of {} blocks differ; first at block {}, byte {}",
        bad.len(),
        blocks.len(),
        got.len() / block,
        i / block,
        i % block
    ))
}

/// ggml's own vectors' inputs (`../shared/vectors/quant`), through today's ggml.
#[test]
fn vector_inputs_match_ggml_harness() {
    let Some(exe) = harness() else { return };
    let Some(dir) = ggufkit_testkit::shared::find("vectors/quant") else {
        return;
    };
    let mut failures = Vec::new();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("read_dir") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "gguf") {
            continue;
        }
        let g = Gguf::open(&path).expect("open");
        let ty = GgmlType::from_name(g.get_str("vectors.type").expect("type")).expect("type");
        if !quant::can_quantize(ty) || matches!(ty, GgmlType::Q8_1 | GgmlType::Q8_K) {
            continue;
        }
        for case in 0..4 {
            let Some(t) = g.tensor(&format!("case{case}.input")) else {
                continue;
            };
            let src = f32s(t.data().expect("data"));
            let want = ggml_quantize(&exe, ty, &src, src.len(), None);
            let mut got = Vec::new();
            quant::quantize(ty, &src, &mut got).expect("quantize");
            if let Some(m) = first_diff(&got, &want, ty.type_size() as usize) {
                failures.push(format!("{ty} case{case}: {m}"));
            }
            n += 1;
        }
    }
    println!("{n} vector inputs checked against ggml");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// f16-rounded inputs, with and without importance, for every quantizer.

/// Every type `quantize_rows` makes.
const TYPES: &[GgmlType] = &[
    GgmlType::F16,
    GgmlType::BF16,
    GgmlType::Q4_0,
    GgmlType::Q4_1,
    GgmlType::Q5_0,
    GgmlType::Q5_1,
    GgmlType::Q8_0,
    GgmlType::Q2_K,
    GgmlType::Q3_K,
    GgmlType::Q4_K,
    GgmlType::Q5_K,
    GgmlType::Q6_K,
    GgmlType::IQ2_XXS,
    GgmlType::IQ2_XS,
    GgmlType::IQ2_S,
    GgmlType::IQ3_XXS,
    GgmlType::IQ3_S,
    GgmlType::IQ1_S,
    GgmlType::IQ1_M,
    GgmlType::IQ4_NL,
    GgmlType::IQ4_XS,
    GgmlType::TQ1_0,
    GgmlType::TQ2_0,
    GgmlType::MXFP4,
    GgmlType::NVFP4,
    GgmlType::Q1_0,
    GgmlType::Q2_0,
];

const N_PER_ROW: usize = 512;

/// A fixed generator (64-bit LCG), so the fixture's inputs are the same everywhere.
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Roughly normal (Irwin-Hall of 4, centred), in f32 arithmetic only.
    fn normal(&mut self) -> f32 {
        let s = self.uniform() + self.uniform() + self.uniform() + self.uniform();
        (s - 2.0) * 1.732_050_8
    }
}

fn f16_round(v: f32) -> f32 {
    quant::f16_to_f32(quant::f32_to_f16(v))
}

/// Eight rows of f16-rounded values: normal at four scales, a row of multiples of 1/8 (many exact
/// ties), a sparse row, a row with one huge outlier, a row of one repeated value.
fn f16_rows() -> Vec<f32> {
    let mut g = Lcg(0x9e37_79b9_7f4a_7c15);
    let mut v = Vec::with_capacity(8 * N_PER_ROW);
    for scale in [0.02f32, 1.0, 0.003, 30.0] {
        v.extend((0..N_PER_ROW).map(|_| f16_round(scale * g.normal())));
    }
    v.extend((0..N_PER_ROW).map(|_| f16_round((4.0 * g.normal()).round() / 8.0)));
    v.extend((0..N_PER_ROW).map(|i| {
        let x = g.normal();
        if i % 7 == 0 {
            f16_round(x * 0.1)
        } else {
            0.0
        }
    }));
    v.extend((0..N_PER_ROW).map(|i| {
        let x = g.normal();
        f16_round(if i == 100 { 900.0 } else { 0.05 * x })
    }));
    v.extend((0..N_PER_ROW).map(|_| f16_round(0.015625)));
    v
}

/// Importance per column as llama-imatrix gives it (mean squares: positive, spread over a few
/// decades), with a few zeros.
fn importance() -> Vec<f32> {
    let mut g = Lcg(0x2545_f491_4f6c_dd1d);
    (0..N_PER_ROW)
        .map(|i| {
            let u = g.uniform();
            if i % 61 == 5 {
                0.0
            } else {
                (u * u * 40.0 + 0.001) * if i % 9 == 0 { 50.0 } else { 1.0 }
            }
        })
        .collect()
}

fn ours(ty: GgmlType, src: &[f32], imatrix: Option<&[f32]>) -> Vec<u8> {
    let n = src.len() / ty.block_size() as usize * ty.type_size() as usize;
    let mut out = vec![0u8; n];
    quant::quantize_rows(ty, src, N_PER_ROW, imatrix, &mut out).expect("quantize_rows");
    let mut par = vec![0u8; n];
    quant::quantize_rows_par(ty, src, N_PER_ROW, imatrix, &mut par).expect("par");
    assert_eq!(
        out, par,
        "{ty}: quantize_rows_par differs from quantize_rows"
    );
    out
}

fn sha256_hex(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

const FIXTURE: &str = include_str!("fixtures/ggml_quantize_f16_rounded.txt");

/// The committed sha256 of ggml's bytes for (type, with importance?), from the fixture.
fn fixture() -> std::collections::BTreeMap<(String, String), String> {
    FIXTURE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            ((f[0].to_string(), f[1].to_string()), f[2].to_string())
        })
        .collect()
}

fn cases() -> Vec<(GgmlType, &'static str)> {
    let mut v = Vec::new();
    for &ty in TYPES {
        if !quant::requires_importance(ty) {
            v.push((ty, "none"));
        }
        v.push((ty, "imatrix"));
    }
    v
}

/// Our bytes on the f16-rounded rows match the committed sha256 of ggml's (the fixture made by
/// `f16_rounded_match_ggml_harness` with `GGUFKIT_WRITE_FIXTURE=1`), with and without importance.
#[test]
fn f16_rounded_match_committed_ggml_hashes() {
    let src = f16_rows();
    let im = importance();
    let want = fixture();
    let mut failures = Vec::new();
    for (ty, mode) in cases() {
        let got = ours(ty, &src, (mode == "imatrix").then_some(&im[..]));
        match want.get(&(ty.name().to_string(), mode.to_string())) {
            None => failures.push(format!("{ty} {mode}: not in the fixture")),
            Some(h) if *h != sha256_hex(&got) => failures.push(format!("{ty} {mode}: differs")),
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same rows through ggml itself (`scripts/ggml-harness.sh`), block by block.
#[test]
fn f16_rounded_match_ggml_harness() {
    let Some(exe) = harness() else { return };
    let src = f16_rows();
    let im = importance();
    let mut failures = Vec::new();
    let mut lines = Vec::new();
    for (ty, mode) in cases() {
        let w = (mode == "imatrix").then_some(&im[..]);
        let want = ggml_quantize(&exe, ty, &src, N_PER_ROW, w);
        lines.push(format!("{} {mode} {}", ty.name(), sha256_hex(&want)));
        let got = ours(ty, &src, w);
        if let Some(m) = first_diff(&got, &want, ty.type_size() as usize) {
            failures.push(format!("{ty} {mode}: {m}"));
        }
    }
    println!(
        "{} cases (type, with/without importance) checked against ggml",
        lines.len()
    );
    if std::env::var_os("GGUFKIT_WRITE_FIXTURE").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/ggml_quantize_f16_rounded.txt");
        let text = format!(
            "# sha256 of ggml_quantize_chunk(type, rows, ..., 8 rows, 512 per row, imatrix or NULL) on\n\
             # tests/quant_ggml.rs's f16-rounded rows, from llama.cpp 0c1e57098 (llama-cpp-python 0.3.36)\n\
             # built by scripts/ggml-harness.sh; rewritten by GGUFKIT_WRITE_FIXTURE=1 cargo test\n\
             # -p ggufkit --test quant_ggml f16_rounded_match_ggml_harness\n{}\n",
            lines.join("\n")
        );
        std::fs::write(&path, text).expect("write fixture");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
