//! Dequantization throughput per type, in elements (floats) per second: one thread, then all
//! threads of rayon's pool.
//!
//! `cargo bench -p ggufkit --bench dequant` (add a filter such as `q4_k` to run one type).
//! Data: 1 Mi elements per type, quantized from a smooth random signal where ggufkit has a
//! quantizer, random blocks with a moderate f16 scale otherwise.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ggufkit::{quant, Endian, GgmlType};
use std::hint::black_box;
use std::time::Duration;

const N: usize = 1 << 20;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn data_for(ty: GgmlType) -> Vec<u8> {
    let mut s = 0x1234_5678_9abc_def0u64 ^ u64::from(ty.id());
    if quant::can_quantize(ty) && !ty.is_integer() {
        let x: Vec<f32> = (0..N)
            .map(|_| (xorshift(&mut s) >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
            .collect();
        let mut q = Vec::new();
        quant::quantize(ty, &x, &mut q).expect("quantize");
        return q;
    }
    let bytes = ty.bytes_for(N as u64).expect("whole blocks") as usize;
    let mut q: Vec<u8> = (0..bytes).map(|_| (xorshift(&mut s) >> 56) as u8).collect();
    // Keep scales finite and moderate: set the block's f16 scale at offset 0 to about 0.01.
    if matches!(ty, GgmlType::IQ2_XXS | GgmlType::IQ2_XS | GgmlType::IQ1_S) {
        for b in q.chunks_exact_mut(ty.type_size() as usize) {
            b[0..2].copy_from_slice(&quant::f32_to_f16(0.01).to_le_bytes());
        }
    }
    q
}

fn bench(c: &mut Criterion) {
    let types: Vec<GgmlType> = GgmlType::supported()
        .filter(|&t| quant::can_dequantize(t))
        .collect();
    let mut out = vec![0f32; N];
    let mut group = c.benchmark_group("dequant_1t");
    group
        .throughput(Throughput::Elements(N as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let inputs: Vec<(GgmlType, Vec<u8>)> = types.iter().map(|&t| (t, data_for(t))).collect();
    for (ty, data) in &inputs {
        group.bench_with_input(BenchmarkId::from_parameter(ty), data, |b, data| {
            b.iter(|| quant::dequantize(*ty, black_box(data), Endian::Little, &mut out))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("dequant_par");
    group
        .throughput(Throughput::Elements(N as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (ty, data) in &inputs {
        group.bench_with_input(BenchmarkId::from_parameter(ty), data, |b, data| {
            b.iter(|| quant::dequantize_par(*ty, black_box(data), Endian::Little, &mut out))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
