//! Dequantizing every type ggufkit reads and quantizing every type it can write, in elements
//! (floats) per second: one thread (`dequantize`, `quantize_into`) and all threads of rayon's
//! pool (`dequantize_par`, `quantize_par`).
//!
//! `cargo bench -p ggufkit-bench --bench codec` (a filter such as `q4_k` runs one type;
//! `RAYON_NUM_THREADS` sets "all threads"). Input (`ggufkit_bench::codec_input`): a smooth
//! pseudo-random signal in [-0.5, 0.5), 1 Mi elements to dequantize (quantized from that signal
//! by ggufkit, with importance weights for the types that need them) and 256 Ki elements to
//! quantize. The comparison with ggml is `--bin codecs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use criterion::{measurement::WallTime, Throughput};
use ggufkit::{quant, Endian, GgmlType};
use ggufkit_bench::codec_input::{blocks, signal};

const N_DEQUANT: usize = 1 << 20;
const N_QUANT: usize = 1 << 18;

fn configure(g: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    g.throughput(Throughput::Elements(n as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
}

fn dequant(c: &mut Criterion) {
    let inputs: Vec<(GgmlType, Vec<u8>)> = GgmlType::supported()
        .filter(|&t| quant::can_dequantize(t))
        .filter_map(|t| Some((t, blocks(t, N_DEQUANT)?)))
        .collect();
    let mut out = vec![0f32; N_DEQUANT];
    for (group, par) in [("dequant_1t", false), ("dequant_all_threads", true)] {
        let mut g = c.benchmark_group(group);
        configure(&mut g, N_DEQUANT);
        for (ty, data) in &inputs {
            g.bench_with_input(BenchmarkId::from_parameter(ty.name()), data, |b, data| {
                b.iter(|| {
                    let r = if par {
                        quant::dequantize_par(*ty, black_box(data), Endian::Little, &mut out)
                    } else {
                        quant::dequantize(*ty, black_box(data), Endian::Little, &mut out)
                    };
                    r.expect("dequantize");
                    black_box(out[0])
                })
            });
        }
        g.finish();
    }
}

fn quantize(c: &mut Criterion) {
    let src = signal(N_QUANT, 7);
    let types: Vec<GgmlType> = GgmlType::supported()
        .filter(|&t| quant::can_quantize(t))
        .collect();
    for (group, par) in [("quant_1t", false), ("quant_all_threads", true)] {
        let mut g = c.benchmark_group(group);
        configure(&mut g, N_QUANT);
        for &ty in &types {
            let mut out = vec![0u8; ty.bytes_for(N_QUANT as u64).expect("whole blocks") as usize];
            g.bench_function(BenchmarkId::from_parameter(ty.name()), |b| {
                b.iter(|| {
                    let r = if par {
                        quant::quantize_par(ty, black_box(&src), &mut out)
                    } else {
                        quant::quantize_into(ty, black_box(&src), &mut out)
                    };
                    r.expect("quantize");
                    black_box(out[0])
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, dequant, quantize);
criterion_main!(benches);
