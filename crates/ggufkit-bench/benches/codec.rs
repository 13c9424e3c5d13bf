//! Dequantizing every type ggufkit reads and quantizing every type it can write, in elements
//! (floats) per second: one thread (`dequantize`, `quantize_into`) and all threads of rayon's
//! pool (`dequantize_par`, `quantize_par`).
//!
//! `cargo bench -p ggufkit-bench --bench codec` (a filter such as `q4_k` runs one type;
//! `RAYON_NUM_THREADS` sets "all threads"). Input: a smooth pseudo-random signal in [-0.5, 0.5),
//! 1 Mi elements to dequantize (quantized from that signal where ggufkit has a quantizer, random
//! blocks with a small f16 scale otherwise) and 256 Ki elements to quantize.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use criterion::{measurement::WallTime, Throughput};
use ggufkit::{quant, Endian, GgmlType};

const N_DEQUANT: usize = 1 << 20;
const N_QUANT: usize = 1 << 18;

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn signal(n: usize, seed: u64) -> Vec<f32> {
    let mut s = 0x1234_5678_9abc_def0u64 ^ seed;
    (0..n)
        .map(|i| {
            let noise = (xorshift(&mut s) >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            0.5 * (i as f32 * 0.01).sin() * 0.5 + noise * 0.5
        })
        .collect()
}

/// `n` elements of `ty` as blocks: quantized from the signal when possible, random otherwise.
fn blocks(ty: GgmlType, n: usize) -> Vec<u8> {
    if quant::can_quantize(ty) && !ty.is_integer() {
        let mut q = Vec::new();
        quant::quantize(ty, &signal(n, u64::from(ty.id())), &mut q).expect("quantize");
        return q;
    }
    let mut s = 0x0fed_cba9_8765_4321u64 ^ u64::from(ty.id());
    let bytes = ty.bytes_for(n as u64).expect("whole blocks") as usize;
    let mut q: Vec<u8> = (0..bytes).map(|_| (xorshift(&mut s) >> 56) as u8).collect();
    // types without a quantizer here start with an f16 scale: keep it finite and small
    if ty.is_quantized() {
        let scale = quant::f32_to_f16(0.01).to_le_bytes();
        for b in q.chunks_exact_mut(ty.type_size() as usize) {
            b[..2].copy_from_slice(&scale);
        }
    }
    q
}

fn configure(g: &mut BenchmarkGroup<'_, WallTime>, n: usize) {
    g.throughput(Throughput::Elements(n as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
}

fn dequant(c: &mut Criterion) {
    let inputs: Vec<(GgmlType, Vec<u8>)> = GgmlType::supported()
        .filter(|&t| quant::can_dequantize(t))
        .map(|t| (t, blocks(t, N_DEQUANT)))
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
