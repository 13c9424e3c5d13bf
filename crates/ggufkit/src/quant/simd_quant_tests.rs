//! The SIMD quantizers of q8_0, tq1_0, tq2_0, q2_0 and mxfp4 against their scalar code, on inputs
//! chosen to reach every special case (the importance paths' searches are `ksearch`'s, tested
//! there against ggml's order).
#![forbid(unsafe_code)]

use super::tests::Rng;
use super::*;

/// Blocks of 256 floats, each of one kind: smooth data, random bit patterns (NaN payloads,
/// infinities, subnormals), specials mixed with small integers, exact rounding ties of every
/// format (halves at scale 1 and at scale 127), constant blocks, zeros of either sign, tiny
/// values (whose inverse scale overflows) and huge ones.
fn input(seed: u64, blocks: usize) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut x = Vec::with_capacity(256 * blocks);
    for b in 0..blocks {
        let kind = rng.next_u64() % 10;
        let c = f32::from_bits((rng.next_u64() >> 32) as u32);
        for i in 0..256 {
            let r = rng.next_u64();
            let v = match kind {
                0 => ((i + 256 * b) as f32 * 0.37).sin() * (1 + b % 7) as f32,
                1 => f32::from_bits((r >> 32) as u32),
                2 => match r % 9 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f32::NAN,
                    3 => -f32::NAN,
                    4 => f32::INFINITY,
                    5 => f32::NEG_INFINITY,
                    _ => (r >> 40) as f32 % 5.0 - 2.0,
                },
                3 => ((r >> 40) % 5) as f32 * 0.5 - 1.0,
                4 => ((r >> 40) % 255) as f32 * 0.5 - 63.5,
                5 => c,
                6 => [0.0, -0.0][(r % 2) as usize],
                7 => f32::from_bits((r >> 40) as u32 & 0x807f_ffff) * 1e-3,
                8 => ((r >> 40) as f32 - 8e6) * 4e31,
                _ => {
                    if r % 31 == 0 {
                        f32::NAN
                    } else {
                        ((r >> 40) as f32 / 1.6e7) - 0.5
                    }
                }
            };
            x.push(v);
        }
        if kind == 4 {
            // the largest magnitude exactly 127 (q8_0's scale 1) or 1 (the others')
            x[256 * b + (rng.next_u64() % 256) as usize] = [127.0, -127.0, 1.0][b % 3];
        }
    }
    x
}

fn assert_same(name: &str, a: &[u8], b: &[u8]) {
    let first = a.iter().zip(b).position(|(p, q)| p != q);
    assert_eq!(first, None, "{name}: first differing byte");
}

#[test]
fn simple_quantizers_simd_match_scalar() {
    type Quant = fn(&[f32], &mut [u8]);
    let cases: [(GgmlType, Quant, Quant); 6] = [
        (
            GgmlType::Q8_0,
            legacy::quant_q8_0,
            legacy::quant_q8_0_scalar,
        ),
        (
            GgmlType::TQ1_0,
            ternary::quant_tq1_0,
            ternary::quant_tq1_0_scalar,
        ),
        (
            GgmlType::TQ2_0,
            ternary::quant_tq2_0,
            ternary::quant_tq2_0_scalar,
        ),
        (GgmlType::Q2_0, q1_q2::quant_q2_0, q1_q2::quant_q2_0_scalar),
        (GgmlType::MXFP4, fp4::quant_mxfp4, fp4::quant_mxfp4_scalar),
        (GgmlType::BF16, float::quant_bf16, float::quant_bf16_scalar),
    ];
    for (seed, (ty, fast, scalar)) in cases.into_iter().enumerate() {
        let x = input(21 + seed as u64, 3000);
        let n = ty.bytes_for(x.len() as u64).unwrap() as usize;
        let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
        fast(&x, &mut a);
        scalar(&x, &mut b);
        assert_same(ty.name(), &a, &b);
    }
}

/// bf16 conversion: every top half (every sign, exponent and kept mantissa, NaNs and infinities
/// included) under the low halves where rounding changes (ties to even either way, just below and
/// above a tie, the carry into the exponent), and an odd length for the scalar tail.
#[test]
fn bf16_quantize_simd_matches_scalar_on_every_top_half() {
    let lows = [0x0000u32, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff];
    let mut x: Vec<f32> = (0..=0xffffu32)
        .flat_map(|top| lows.iter().map(move |&low| f32::from_bits(top << 16 | low)))
        .collect();
    x.extend([1.5f32, -0.0, f32::NAN, f32::INFINITY, 3.0e38]);
    let (mut a, mut b) = (vec![0u8; 2 * x.len()], vec![0u8; 2 * x.len()]);
    float::quant_bf16(&x, &mut a);
    float::quant_bf16_scalar(&x, &mut b);
    assert_same("bf16", &a, &b);
    // streamed (non-temporal stores): into a 16-byte aligned output and, through the ordinary
    // stores, into one that is not
    let mut buf = vec![0u8; b.len() + 16];
    let start = buf.as_ptr().align_offset(16);
    for offset in [start, start + 2] {
        let out = &mut buf[offset..offset + b.len()];
        if simd::quant_bf16(&x, out, true) {
            assert_same("bf16 streamed", out, &b);
        }
    }
}
