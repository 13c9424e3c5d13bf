//! One quantization of the codec benchmark's input, for instruction counts under callgrind.
//!
//! ```text
//! cargo run --release -p ggufkit-bench --bin quant_once -- TYPE [MI] [--imatrix] [--warm] [--write DIR]
//! ```
//!
//! Quantizes `MI` Mi elements (default 1) of the `codecs` benchmark's signal in its rows, with its
//! importance weights under `--imatrix`, once, and prints the output's hash. `--write DIR` also
//! writes `src.f32` and `imatrix.f32` there, the files ggml's `codec_bench` loads for the same
//! run (`src N PATH`, `imatrix ROW PATH`, `quant TYPE_ID ROW 1`). Under callgrind,
//! `--toggle-collect='*quantize_once*'` counts the quantizer alone. `--warm` quantizes once
//! before, uncounted, so the lattice quantizers' neighbour lists (built on first use, where ggml
//! builds them in `ggml_quantize_init`, outside its count) are ready, as in the `codecs` runs.

use ggufkit::{quant, GgmlType};
use ggufkit_bench::codec_input::{importance, signal, ROW};

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The one call callgrind counts (`--toggle-collect='*quantize_once*'`): kept out of line.
#[inline(never)]
fn quantize_once(ty: GgmlType, src: &[f32], imp: Option<&[f32]>, out: &mut [u8]) {
    quant::quantize_rows(ty, src, ROW, imp, out).expect("quantize_rows");
}

/// The uncounted run of `--warm` (a different symbol from [`quantize_once`]).
#[inline(never)]
fn warm_up(ty: GgmlType, src: &[f32], imp: Option<&[f32]>, out: &mut [u8]) {
    quant::quantize_rows(ty, src, ROW, imp, out).expect("quantize_rows");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: quant_once TYPE [MI] [--imatrix] [--warm] [--write DIR]";
    let Some(ty) = args.first().and_then(|a| GgmlType::from_name(a)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let mi = args
        .get(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(1);
    let weighted = args.iter().any(|a| a == "--imatrix");
    let warm = args.iter().any(|a| a == "--warm");
    let dir = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1));
    let n = mi << 20;
    let src = signal(n, 7);
    let imp = importance();
    if let Some(dir) = dir {
        std::fs::write(format!("{dir}/src.f32"), f32_bytes(&src)).expect("write src.f32");
        std::fs::write(format!("{dir}/imatrix.f32"), f32_bytes(&imp)).expect("write imatrix.f32");
    }
    let bytes = ty.bytes_for(n as u64).expect("size") as usize;
    let mut out = vec![0u8; bytes];
    if warm {
        warm_up(ty, &src, weighted.then_some(&imp[..]), &mut out);
    }
    quantize_once(ty, &src, weighted.then_some(&imp[..]), &mut out);
    println!("{:016x}", ggufkit_bench::ggml::hash64(&out));
}
