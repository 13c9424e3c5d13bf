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

/// The `quantize_chunk` program of `scripts/ggml-harness.sh`: `$GGUFKIT_GGML_HARNESS`, else the
/// script's default place. `None` (and a `SKIPPED` line) when it has not been built.
fn harness() -> Option<PathBuf> {
    let p = match std::env::var_os("GGUFKIT_GGML_HARNESS") {
        Some(p) => PathBuf::from(p),
        None => std::env::temp_dir().join("llama-quantize/harness/quantize_chunk"),
    };
    if p.is_file() {
        return Some(p);
    }
    let thread = std::thread::current();
    println!(
        "SKIPPED {}: ggml's quantize_chunk is absent at {} (build it with scripts/ggml-harness.sh, \
         or set GGUFKIT_GGML_HARNESS)",
        thread.name().unwrap_or("test"),
        p.display()
    );
    None
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
