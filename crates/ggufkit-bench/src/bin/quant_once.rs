//! One quantization of the codec benchmark's signal, for instruction counts: run it under
//! `valgrind --tool=callgrind --toggle-collect='*quantize_rows*'` beside ggml's
//! `quantize_chunk` (`--toggle-collect=ggml_quantize_chunk`) on the same input, which
//! `--dump DIR` writes (`src.f32`, `imatrix.f32`, and ggufkit's bytes as `ggufkit.bin`).
//!
//! ```text
//! cargo run --release -p ggufkit-bench --bin quant_once -- TYPE MI [--imatrix] [--dump DIR]
//! ```
//!
//! `MI` is the element count in Mi; rows are `codec_input::ROW` long, as in `--bin codecs`.

use std::path::PathBuf;

use ggufkit::{quant, GgmlType};
use ggufkit_bench::codec_input::{self, ROW};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: quant_once TYPE MI [--imatrix] [--dump DIR]";
    let ty = args.next().ok_or(usage)?;
    let ty = GgmlType::from_name(&ty).ok_or("unknown type")?;
    let n: usize = args.next().ok_or(usage)?.parse::<usize>()? << 20;
    let (mut with_imatrix, mut dump) = (false, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--imatrix" => with_imatrix = true,
            "--dump" => dump = Some(PathBuf::from(args.next().ok_or(usage)?)),
            _ => return Err(usage.into()),
        }
    }
    let src = codec_input::signal(n, 7);
    let imp = codec_input::importance();
    let imatrix = with_imatrix.then_some(imp.as_slice());
    let bytes = ty.bytes_for(n as u64).ok_or("no size")? as usize;
    let mut out = vec![0u8; bytes];
    quant::quantize_rows(ty, &src, ROW, imatrix, &mut out)?;
    if let Some(dir) = dump {
        std::fs::create_dir_all(&dir)?;
        let raw = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        std::fs::write(dir.join("src.f32"), raw(&src))?;
        std::fs::write(dir.join("imatrix.f32"), raw(&imp))?;
        std::fs::write(dir.join("ggufkit.bin"), &out)?;
    }
    println!("{ty}: {n} elements, {bytes} bytes");
    Ok(())
}
