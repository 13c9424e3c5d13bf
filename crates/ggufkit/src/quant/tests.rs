//! Unit tests across families: SIMD against scalar, byte order round trips, no panics.
#![forbid(unsafe_code)]

use super::*;

/// A small deterministic generator (xorshift64*), so the tests need no dependency.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next_u64() >> 56) as u8).collect()
    }
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The bits of `v`, every NaN as one: which NaN an operation on two NaNs returns depends on
/// the order the compiler gives its operands, which neither Rust nor C defines.
fn bits_nan_as_one(v: f32) -> u32 {
    if v.is_nan() {
        u32::MAX
    } else {
        v.to_bits()
    }
}

fn same_bits_nan_as_one(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| bits_nan_as_one(x) == bits_nan_as_one(y))
}

/// Random blocks whose f16 fields are random too, so NaN, Inf and subnormal scales occur.
fn random_blocks(ty: GgmlType, blocks: usize, seed: u64) -> Vec<u8> {
    Rng::new(seed).bytes(blocks * ty.type_size() as usize)
}

fn all_types() -> impl Iterator<Item = GgmlType> {
    GgmlType::supported()
}

#[test]
fn f16_simd_matches_scalar_for_every_pattern() {
    let data: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
    let mut a = vec![0f32; 65536];
    let mut b = vec![0f32; 65536];
    float::dequant_f16_scalar(&data, &mut a);
    float::dequant_f16(&data, &mut b);
    assert!(same_bits(&a, &b));
    // Odd lengths exercise the scalar tail of the SIMD loop.
    let mut c = vec![0f32; 13];
    float::dequant_f16(&data[..26], &mut c);
    assert!(same_bits(&a[..13], &c));
}

#[test]
fn block_simd_matches_scalar() {
    type Pair = (GgmlType, DequantFn, DequantFn);
    let pairs: [Pair; 26] = [
        (
            GgmlType::Q2_K,
            kquants::dequant_q2_k,
            kquants::dequant_q2_k_scalar,
        ),
        (
            GgmlType::Q6_K,
            kquants::dequant_q6_k,
            kquants::dequant_q6_k_scalar,
        ),
        (
            GgmlType::Q5_0,
            legacy::dequant_q5_0,
            legacy::dequant_q5_0_scalar,
        ),
        (
            GgmlType::Q5_1,
            legacy::dequant_q5_1,
            legacy::dequant_q5_1_scalar,
        ),
        (
            GgmlType::Q8_1,
            legacy::dequant_q8_1,
            legacy::dequant_q8_1_scalar,
        ),
        (
            GgmlType::Q8_K,
            kquants::dequant_q8_k,
            kquants::dequant_q8_k_scalar,
        ),
        (GgmlType::F32, float::dequant_f32, float::dequant_f32_scalar),
        (GgmlType::F64, float::dequant_f64, float::dequant_f64_scalar),
        (GgmlType::I8, float::dequant_i8, float::dequant_i8_scalar),
        (GgmlType::I16, float::dequant_i16, float::dequant_i16_scalar),
        (GgmlType::I32, float::dequant_i32, float::dequant_i32_scalar),
        (
            GgmlType::TQ2_0,
            ternary::dequant_tq2_0,
            ternary::dequant_tq2_0_scalar,
        ),
        (
            GgmlType::BF16,
            float::dequant_bf16,
            float::dequant_bf16_scalar,
        ),
        (
            GgmlType::MXFP4,
            fp4::dequant_mxfp4,
            fp4::dequant_mxfp4_scalar,
        ),
        (
            GgmlType::NVFP4,
            fp4::dequant_nvfp4,
            fp4::dequant_nvfp4_scalar,
        ),
        (
            GgmlType::Q4_0,
            legacy::dequant_q4_0,
            legacy::dequant_q4_0_scalar,
        ),
        (
            GgmlType::Q8_0,
            legacy::dequant_q8_0,
            legacy::dequant_q8_0_scalar,
        ),
        (
            GgmlType::Q3_K,
            kquants::dequant_q3_k,
            kquants::dequant_q3_k_scalar,
        ),
        (
            GgmlType::Q4_K,
            kquants::dequant_q4_k,
            kquants::dequant_q4_k_scalar,
        ),
        (
            GgmlType::Q5_K,
            kquants::dequant_q5_k,
            kquants::dequant_q5_k_scalar,
        ),
        (GgmlType::IQ1_S, iq::dequant_iq1_s, iq::dequant_iq1_s_scalar),
        (
            GgmlType::IQ4_NL,
            iq::dequant_iq4_nl,
            iq::dequant_iq4_nl_scalar,
        ),
        (
            GgmlType::IQ4_XS,
            iq::dequant_iq4_xs,
            iq::dequant_iq4_xs_scalar,
        ),
        (GgmlType::IQ1_M, iq::dequant_iq1_m, iq::dequant_iq1_m_scalar),
        (
            GgmlType::Q4_1,
            legacy::dequant_q4_1,
            legacy::dequant_q4_1_scalar,
        ),
        (
            GgmlType::TQ1_0,
            ternary::dequant_tq1_0,
            ternary::dequant_tq1_0_scalar,
        ),
    ];
    for (ty, fast, scalar) in pairs {
        for seed in 0..20 {
            let data = random_blocks(ty, 37, seed);
            let n = 37 * ty.block_size() as usize;
            let (mut a, mut b) = (vec![0f32; n], vec![0f32; n]);
            fast(&data, &mut a);
            scalar(&data, &mut b);
            assert!(same_bits(&a, &b), "{ty} seed {seed}");
        }
    }
}

/// The streaming decoders (non-temporal stores) give the ordinary decoders' bits, into a 16-byte
/// aligned output and, through their ordinary-store fallback, into one that is not.
#[test]
fn streamed_decoding_matches_ordinary_decoding() {
    let mut streamed_types = 0;
    for ty in all_types() {
        let blocks = 37;
        let n = blocks * ty.block_size() as usize;
        let data = random_blocks(ty, blocks, u64::from(ty.id()) + 1000);
        let Ok(expected) = dequantize_to_vec(ty, &data, Endian::Little) else {
            continue;
        };
        let mut buf = vec![0f32; n + 8];
        let start = buf.as_ptr().align_offset(16);
        for offset in [start, start + 1] {
            let out = &mut buf[offset..offset + n];
            out.fill(f32::NAN);
            if !simd::dequant_streamed(ty, &data, out) {
                continue;
            }
            streamed_types += usize::from(offset == start);
            assert!(same_bits(&expected, out), "{ty} at offset {offset}");
        }
    }
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("f16c")
        && is_x86_feature_detected!("fma")
    {
        assert_eq!(
            streamed_types, 27,
            "every AVX2 decoder has a streaming form"
        );
    }
    let _ = streamed_types;
}

/// Outputs past the streaming threshold go through the streaming decoders, serially and in
/// parallel, in both byte orders, with the same bits as small outputs.
#[test]
fn outputs_past_the_cache_decode_the_same() {
    for ty in [
        GgmlType::Q8_0,
        GgmlType::BF16,
        GgmlType::Q4_K,
        GgmlType::F32,
    ] {
        // the smallest power-of-two output that streams here (at most 64 Mi floats)
        let floats = (16..=26)
            .map(|b| 1usize << b)
            .find(|&n| {
                let in_bytes = ty.bytes_for(n as u64).expect("whole blocks") as usize;
                streaming::streams(in_bytes, 4 * n)
            })
            .unwrap_or(1 << 26);
        let blocks = floats / ty.block_size() as usize;
        let small = random_blocks(ty, 64, u64::from(ty.id()));
        let data: Vec<u8> = (small.iter().copied().cycle())
            .take(blocks * ty.type_size() as usize)
            .collect();
        let expected = dequantize_to_vec(ty, &small, Endian::Little).unwrap();
        let mut out = dequantize_to_vec(ty, &data, Endian::Little).unwrap();
        assert!(
            out.chunks(expected.len()).all(|c| same_bits(c, &expected)),
            "{ty}"
        );
        out.fill(0.0);
        dequantize_par(ty, &data, Endian::Little, &mut out).unwrap();
        assert!(
            out.chunks(expected.len()).all(|c| same_bits(c, &expected)),
            "{ty} par"
        );
        let mut swapped = data;
        byteswap_blocks(ty, &mut swapped).unwrap();
        out.fill(0.0);
        dequantize_par(ty, &swapped, Endian::Big, &mut out).unwrap();
        assert!(
            out.chunks(expected.len()).all(|c| same_bits(c, &expected)),
            "{ty} big-endian"
        );
    }
}

#[test]
fn byteswap_twice_is_identity_and_big_endian_decodes_the_same() {
    for ty in all_types() {
        let data = random_blocks(ty, 9, u64::from(ty.id()));
        let mut swapped = data.clone();
        byteswap_blocks(ty, &mut swapped).unwrap();
        let l = layout(ty).unwrap();
        if l.fields.iter().any(|f| f.width > 1) {
            assert_ne!(swapped, data, "{ty}: swapping changed nothing");
        }
        let little = dequantize_to_vec(ty, &data, Endian::Little).unwrap();
        let big = dequantize_to_vec(ty, &swapped, Endian::Big).unwrap();
        assert!(same_bits(&little, &big), "{ty}: big-endian decode differs");
        let mut par = vec![0f32; little.len()];
        dequantize_par(ty, &swapped, Endian::Big, &mut par).unwrap();
        assert!(
            same_bits(&little, &par),
            "{ty}: parallel big-endian decode differs"
        );
        byteswap_blocks(ty, &mut swapped).unwrap();
        assert_eq!(swapped, data, "{ty}: swapping twice is not the identity");
    }
}

#[test]
fn big_endian_fields_are_read_big_endian() {
    // q8_0 with d = 1.0 stored big-endian (0x3C00 → bytes 3C 00).
    let mut block = vec![0x3c, 0x00];
    block.extend((0..32).map(|i| i as u8));
    let y = dequantize_to_vec(GgmlType::Q8_0, &block, Endian::Big).unwrap();
    assert_eq!(y, (0..32).map(|i| i as f32).collect::<Vec<_>>());
    // f32 elements are their own field.
    let y = dequantize_to_vec(GgmlType::F32, &1.5f32.to_be_bytes(), Endian::Big).unwrap();
    assert_eq!(y, [1.5]);
}

#[test]
fn arbitrary_bytes_never_panic() {
    for ty in all_types() {
        for seed in 0..8 {
            let data = random_blocks(ty, 3, seed * 1000 + u64::from(ty.id()));
            let y = dequantize_to_vec(ty, &data, Endian::Little).unwrap();
            assert_eq!(y.len(), 3 * ty.block_size() as usize);
        }
    }
}

#[test]
fn wrong_sizes_and_removed_types_are_errors() {
    use crate::error::{Error, QuantError as Q};
    use GgmlType as T;
    let err = |r: Result<()>| match r {
        Err(Error::Quant(q)) => q,
        other => panic!("expected a quant error, got {other:?}"),
    };
    let le = Endian::Little;
    let mut out = vec![0f32; 32];
    let e = err(dequantize(T::Q4_0, &[0; 17], le, &mut out));
    assert_eq!(
        e,
        Q::PartialBlock {
            ty: T::Q4_0,
            bytes: 17
        }
    );
    assert_eq!(
        e.to_string(),
        "q4_0 data of 17 bytes is not a whole number of 18-byte blocks"
    );
    let e = err(dequantize(T::Q4_0, &[0; 18], le, &mut out[..31]));
    assert_eq!(
        e,
        Q::ElementCount {
            ty: T::Q4_0,
            bytes: 18,
            holds: 32,
            expected: 31
        }
    );
    assert_eq!(
        e.to_string(),
        "q4_0 data of 18 bytes holds 32 elements, not 31"
    );
    let e = err(dequantize(T::Q4_2, &[], le, &mut []));
    assert_eq!(e, Q::RemovedType { ty: T::Q4_2 });
    assert_eq!(
        e.to_string(),
        "tensor type q4_2 was removed from ggml and has no block layout"
    );
    let e = err(dequantize_par(T::Q4_K, &[0; 100], le, &mut out));
    assert_eq!(
        e,
        Q::PartialBlock {
            ty: T::Q4_K,
            bytes: 100
        }
    );
    let e = err(byteswap_blocks(T::Q8_0, &mut [0; 35]));
    assert_eq!(
        e,
        Q::PartialBlock {
            ty: T::Q8_0,
            bytes: 35
        }
    );
    let e = err(quantize(T::Q4_K, &[0.0; 100], &mut Vec::new()));
    assert_eq!(
        e,
        Q::PartialBlockElements {
            ty: T::Q4_K,
            elements: 100
        }
    );
    assert_eq!(
        e.to_string(),
        "100 elements are not a whole number of 256-element q4_k blocks"
    );
    let e = err(quantize_into(T::Q8_0, &[0.0; 32], &mut [0; 33]));
    assert_eq!(
        e,
        Q::PartialBlock {
            ty: T::Q8_0,
            bytes: 33
        }
    );
    let e = err(quantize(T::I32, &[0.0; 4], &mut Vec::new()));
    assert_eq!(e, Q::NoQuantizer { ty: T::I32 });
    assert_eq!(e.to_string(), "no quantizer for tensor type i32");
    let e = err(quantize_par(T::IQ2_XXS, &[0.0; 256], &mut [0; 66]));
    assert_eq!(e, Q::NoQuantizer { ty: T::IQ2_XXS });
    assert!(dequantize(T::Q4_0, &[], le, &mut []).is_ok());
    assert!(!can_dequantize(T::Q4_0_4_4));
    assert!(can_dequantize(T::Q8_1) && can_dequantize(T::I64));
}

/// Gaussian-ish test data from the generator (sum of uniforms), 256·k values.
fn signal(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let s: f32 = (0..4)
                .map(|_| (r.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
                .sum();
            s - 2.0
        })
        .collect()
}

/// Quantizing then dequantizing stays within a per-type relative RMS error, and quantizing
/// hostile input (NaN, Inf, huge, subnormal) never panics.
#[test]
fn quantize_round_trips_within_bounds() {
    let x = signal(1024, 7);
    let rms = (x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32).sqrt();
    for ty in all_types().filter(|&t| can_quantize(t)) {
        let mut q = Vec::new();
        quantize(ty, &x, &mut q).unwrap();
        assert_eq!(q.len() as u64, ty.bytes_for(1024).unwrap(), "{ty}");
        let y = dequantize_to_vec(ty, &q, Endian::Little).unwrap();
        let err = (x
            .iter()
            .zip(&y)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f32>()
            / x.len() as f32)
            .sqrt()
            / rms;
        let bound = match ty {
            GgmlType::F32 | GgmlType::F64 => 0.0,
            GgmlType::F16 => 1e-3,
            GgmlType::BF16 => 5e-3,
            GgmlType::Q8_0 | GgmlType::Q8_1 | GgmlType::Q8_K => 0.01,
            GgmlType::Q6_K => 0.03,
            GgmlType::Q5_0 | GgmlType::Q5_1 | GgmlType::Q5_K => 0.06,
            GgmlType::Q4_0 | GgmlType::Q4_1 | GgmlType::Q4_K | GgmlType::IQ4_NL => 0.12,
            GgmlType::IQ4_XS | GgmlType::MXFP4 | GgmlType::NVFP4 => 0.15,
            GgmlType::Q3_K | GgmlType::IQ3_S | GgmlType::IQ3_XXS => 0.25,
            _ => 0.8, // 1- and 2-bit formats
        };
        assert!(err <= bound, "{ty}: relative RMS error {err} > {bound}");

        let mut hostile = x.clone();
        for (i, v) in [
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            f32::MAX,
            1e-40,
            -0.0,
        ]
        .into_iter()
        .enumerate()
        {
            hostile[i * 37] = v;
        }
        let mut q = Vec::new();
        quantize(ty, &hostile, &mut q).unwrap();
        dequantize_to_vec(ty, &q, Endian::Little).unwrap();
    }
}

/// q4_k and q5_k decode with one fused multiply-subtract where that is exact (finite f16 scale
/// and minimum) and with the scalar code's two roundings where it is not: every pair of special
/// scale and minimum (±0, ±Inf, NaNs, subnormals, ±max, ordinary values), under every sub-scale,
/// gives the scalar decoder's bits.
#[test]
fn k_quants_fused_or_not_match_scalar_for_special_scales() {
    let specials: [u16; 14] = [
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x83ff, 0x7bff, 0xfbff,
        0x3c00, 0xb555, 0x2e66,
    ];
    for (ty, fast, scalar) in [
        (
            GgmlType::Q4_K,
            kquants::dequant_q4_k as DequantFn,
            kquants::dequant_q4_k_scalar as DequantFn,
        ),
        (
            GgmlType::Q5_K,
            kquants::dequant_q5_k,
            kquants::dequant_q5_k_scalar,
        ),
    ] {
        let size = ty.type_size() as usize;
        let mut rng = Rng::new(u64::from(ty.id()));
        let mut data = Vec::new();
        for &d in &specials {
            for &min in &specials {
                let mut block = rng.bytes(size);
                block[0..2].copy_from_slice(&d.to_le_bytes());
                block[2..4].copy_from_slice(&min.to_le_bytes());
                data.extend_from_slice(&block);
            }
        }
        let n = data.len() / size * ty.block_size() as usize;
        let (mut a, mut b) = (vec![0f32; n], vec![0f32; n]);
        fast(&data, &mut a);
        scalar(&data, &mut b);
        assert!(same_bits(&a, &b), "{ty}");
    }
}

#[test]
fn tq1_0_simd_matches_scalar_for_every_byte_and_special_scales() {
    // 256 blocks: packed byte i of block k is (5i + k) mod 256, so every position takes every
    // byte value; the scales cycle through ±0, ±Inf, NaNs (sign, payload), subnormals, ±max, 1.
    let scales: [u16; 12] = [
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x83ff, 0x7bff, 0xfbff,
        0x3c00,
    ];
    let mut data = Vec::new();
    for blk in 0..256 {
        for i in 0..52 {
            data.push((i * 5 + blk) as u8);
        }
        data.extend_from_slice(&scales[blk % scales.len()].to_le_bytes());
    }
    let n = data.len() / 54 * 256;
    let (mut a, mut b) = (vec![0f32; n], vec![0f32; n]);
    ternary::dequant_tq1_0(&data, &mut a);
    ternary::dequant_tq1_0_scalar(&data, &mut b);
    assert!(same_bits(&a, &b));
}

#[test]
fn dequantize_par_over_many_tasks_matches_serial() {
    // more than one 64 Ki-element task, and a last task shorter than the others
    for ty in [GgmlType::Q4_1, GgmlType::IQ1_M, GgmlType::BF16] {
        let elems = ty.block_size() as usize;
        let blocks = 5 * 65536 / elems + 7;
        let data = random_blocks(ty, blocks, 3);
        let (mut a, mut b) = (vec![0f32; blocks * elems], vec![0f32; blocks * elems]);
        dequantize(ty, &data, Endian::Little, &mut a).unwrap();
        dequantize_par(ty, &data, Endian::Little, &mut b).unwrap();
        assert!(same_bits(&a, &b), "{ty}");
        let mut swapped = data.clone();
        byteswap_blocks(ty, &mut swapped).unwrap();
        dequantize_par(ty, &swapped, Endian::Big, &mut b).unwrap();
        assert!(same_bits(&a, &b), "{ty} big-endian");
    }
}

/// An output too large for one thread to write in 600 µs (10 Mi floats, 40 MiB) goes to the pool
/// without timed runs first, and decodes as the serial path does, its last task short.
#[test]
fn dequantize_par_of_a_large_output_matches_serial() {
    let ty = GgmlType::Q8_0;
    let elems = ty.block_size() as usize;
    let blocks = (10 << 20) / elems + 3;
    let data = random_blocks(ty, blocks, 5);
    let (mut a, mut b) = (vec![0f32; blocks * elems], vec![f32::NAN; blocks * elems]);
    dequantize(ty, &data, Endian::Little, &mut a).unwrap();
    dequantize_par(ty, &data, Endian::Little, &mut b).unwrap();
    assert!(same_bits(&a, &b));
}

#[test]
fn f16_quantize_simd_matches_scalar_on_every_kind_of_float() {
    // random bit patterns (NaN payloads of both signs, infinities, subnormals, all exponents),
    // every rounding boundary around each f16 value, and an odd length for the scalar tail
    let mut rng = Rng::new(11);
    let mut x: Vec<f32> = (0..200_001)
        .map(|_| f32::from_bits((rng.next_u64() >> 32) as u32))
        .collect();
    for h in 0..=u16::MAX {
        let b = f16_to_f32(h).to_bits();
        x.extend(
            [
                b,
                b.wrapping_add(0x1000),
                b.wrapping_add(0xfff),
                b.wrapping_add(0x1001),
            ]
            .map(f32::from_bits),
        );
    }
    x.extend([
        65519.0,
        65520.0,
        -65520.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ]);
    let (mut a, mut b) = (vec![0u8; 2 * x.len()], vec![0u8; 2 * x.len()]);
    float::quant_f16(&x, &mut a);
    float::quant_f16_scalar(&x, &mut b);
    assert_eq!(a, b);
}

/// Quantizer inputs on which a SIMD path must give the scalar path's bytes: smooth data, random
/// bit patterns (NaN, infinities, huge and tiny values), blocks with zeros of both signs at the
/// extremes, ties of magnitude between opposite signs (the first one wins), constant blocks.
fn legacy_quantize_input(seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    let mut x: Vec<f32> = (0..32 * 4000)
        .map(|i| ((i as f32) * 0.37).sin() * (1 + i % 7) as f32)
        .collect();
    x.extend((0..32 * 4000).map(|_| f32::from_bits((rng.next_u64() >> 32) as u32)));
    x.extend((0..32 * 4000).map(|i| match rng.next_u64() % 7 {
        0 => 0.0,
        1 => -0.0,
        2 => f32::NAN,
        3 => (i % 5) as f32,
        4 => -((i % 5) as f32),
        5 => f32::NEG_INFINITY,
        _ => f32::INFINITY,
    }));
    x.extend([1.5f32; 32]);
    x.extend([0.0f32; 32]);
    x.extend([-0.0f32; 32]);
    x
}

#[test]
fn legacy_quantizers_simd_match_scalar() {
    type Quant = fn(&[f32], &mut [u8]);
    let cases: [(&str, usize, Quant, Quant); 4] = [
        ("q4_0", 18, legacy::quant_q4_0, legacy::quant_q4_0_scalar),
        ("q4_1", 20, legacy::quant_q4_1, legacy::quant_q4_1_scalar),
        ("q5_0", 22, legacy::quant_q5_0, legacy::quant_q5_0_scalar),
        ("q5_1", 24, legacy::quant_q5_1, legacy::quant_q5_1_scalar),
    ];
    for (seed, (name, bytes, fast, scalar)) in cases.into_iter().enumerate() {
        let x = legacy_quantize_input(5 + seed as u64);
        let n = x.len() / 32 * bytes;
        let (mut a, mut b) = (vec![0u8; n], vec![0u8; n]);
        fast(&x, &mut a);
        scalar(&x, &mut b);
        let first = a.iter().zip(&b).position(|(p, q)| p != q);
        assert_eq!(first, None, "{name}: first differing byte");
    }
}

/// Groups for the K-quant searches, each with weights: smooth values, random bit patterns (NaN,
/// infinities, huge and tiny values), a mix of zeros of both signs, NaN, infinities and small
/// integers (ties), constant groups; weights random, with zeros, or random bits.
fn search_groups(n: usize, count: usize, seed: u64) -> Vec<(Vec<f32>, Vec<f32>)> {
    let mut rng = Rng::new(seed);
    let f = |rng: &mut Rng| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    let mut out = Vec::new();
    for c in 0..count {
        let x: Vec<f32> = match c % 6 {
            0 | 1 => (0..n).map(|_| f(&mut rng) - 0.5).collect(),
            2 => (0..n)
                .map(|_| f32::from_bits((rng.next_u64() >> 32) as u32))
                .collect(),
            3 => (0..n)
                .map(|i| match rng.next_u64() % 8 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f32::NAN,
                    3 => f32::INFINITY,
                    4 => f32::NEG_INFINITY,
                    5 => (i % 5) as f32,
                    6 => -((i % 3) as f32),
                    _ => f(&mut rng),
                })
                .collect(),
            4 => vec![[1.5f32, -0.25, 0.0, -0.0][(c / 6) % 4]; n],
            _ => (0..n)
                .map(|_| ((rng.next_u64() % 9) as f32 - 4.0) * 0.5)
                .collect(),
        };
        let w: Vec<f32> = match (c / 6) % 3 {
            0 => (0..n).map(|_| f(&mut rng) + 0.1).collect(),
            1 => (0..n)
                .map(|_| {
                    if rng.next_u64() % 3 == 0 {
                        0.0
                    } else {
                        f(&mut rng)
                    }
                })
                .collect(),
            _ => (0..n)
                .map(|_| f32::from_bits((rng.next_u64() >> 32) as u32))
                .collect(),
        };
        out.push((x, w));
    }
    out
}

#[test]
fn make_qx_quants_side_by_side_matches_serial() {
    for n in [16, 32] {
        for (i, (x, w)) in search_groups(n, 3000, 21 + n as u64).iter().enumerate() {
            for nmax in [4, 8, 16, 32] {
                for qw in [None, Some(&w[..])] {
                    let (mut a, mut b) = (vec![0i8; n], vec![0i8; n]);
                    let sa = kquants::make_qx_quants(nmax, x, &mut a, qw);
                    let sb = kquants::make_qx_quants_serial(nmax, x, &mut b, qw);
                    assert_eq!(
                        (bits_nan_as_one(sa), &a),
                        (bits_nan_as_one(sb), &b),
                        "group {i} n {n} nmax {nmax} weighted {}",
                        qw.is_some()
                    );
                }
            }
        }
    }
}

#[test]
fn qx_sums_simd_matches_scalar() {
    let mut num = [0f32; 24];
    for (k, o) in num.iter_mut().enumerate() {
        *o = -(32.0 + 0.1 * (k as f32 - 12.0));
    }
    for n in [16, 32] {
        for (x, w) in search_groups(n, 3000, 5 + n as u64) {
            let max = x.iter().copied().find(|v| v.is_finite() && *v != 0.0);
            for nmax in [4, 32] {
                let (mut a1, mut a2) = ([0f32; 24], [0f32; 24]);
                let (mut b1, mut b2) = ([0f32; 24], [0f32; 24]);
                let max = max.unwrap_or(1.0);
                if !simd::qx_sums(nmax, &x, &w, &num, max, &mut a1, &mut a2) {
                    return;
                }
                kquants::qx_sums_scalar(nmax, &x, &w, &num, max, &mut b1, &mut b2);
                assert!(
                    same_bits_nan_as_one(&a1, &b1) && same_bits_nan_as_one(&a2, &b2),
                    "{x:?} {w:?}"
                );
            }
        }
    }
}

#[test]
fn qkx_searches_side_by_side_match_serial() {
    for (i, (x, w)) in search_groups(16, 4000, 31).iter().enumerate() {
        for (nmax, rmin, rdelta, nstep, mad) in
            [(3, -0.5, 0.1, 15, true), (3, -0.9, 0.05, 36, false)]
        {
            let (mut a, mut b, mut aux) = ([0u8; 16], [0u8; 16], [0u8; 16]);
            let ra = kquants::make_qkx2_quants::<16>(nmax, x, w, &mut a, rmin, rdelta, nstep, mad);
            let rb = kquants::make_qkx2_quants_serial::<16>(
                nmax, x, w, &mut b, &mut aux, rmin, rdelta, nstep, mad,
            );
            assert_eq!(
                (bits_nan_as_one(ra.0), bits_nan_as_one(ra.1), a),
                (bits_nan_as_one(rb.0), bits_nan_as_one(rb.1), b),
                "qkx2 group {i}"
            );
        }
    }
    for (i, (x, w)) in search_groups(32, 4000, 32).iter().enumerate() {
        for (nmax, rmin, nstep) in [(15, -1.0, 20), (31, -0.5, 15)] {
            let (mut a, mut b, mut aux) = ([0u8; 32], [0u8; 32], [0u8; 32]);
            let ra = kquants::make_qkx2_quants::<32>(nmax, x, w, &mut a, rmin, 0.1, nstep, false);
            let rb = kquants::make_qkx2_quants_serial::<32>(
                nmax, x, w, &mut b, &mut aux, rmin, 0.1, nstep, false,
            );
            assert_eq!(
                (bits_nan_as_one(ra.0), bits_nan_as_one(ra.1), a),
                (bits_nan_as_one(rb.0), bits_nan_as_one(rb.1), b),
                "qkx2 group {i}"
            );
        }
    }
    for n in [16usize, 32] {
        for (i, (x, w)) in search_groups(n, 4000, 33 + n as u64).iter().enumerate() {
            for nmax in [3, 15, 31] {
                for qw in [None, Some(&w[..])] {
                    let (mut a, mut b, mut aux) = ([0u8; 32], [0u8; 32], [0u8; 32]);
                    let (ra, rb) = if n == 16 {
                        (
                            weighted::make_qkx3_quants::<16>(nmax, x, qw, &mut a, -0.9, 0.05, 36),
                            weighted::make_qkx3_quants_serial::<16>(
                                nmax, x, qw, &mut b, &mut aux, -0.9, 0.05, 36,
                            ),
                        )
                    } else {
                        (
                            weighted::make_qkx3_quants::<32>(nmax, x, qw, &mut a, -0.9, 0.05, 36),
                            weighted::make_qkx3_quants_serial::<32>(
                                nmax, x, qw, &mut b, &mut aux, -0.9, 0.05, 36,
                            ),
                        )
                    };
                    assert_eq!(
                        (bits_nan_as_one(ra.0), bits_nan_as_one(ra.1), a),
                        (bits_nan_as_one(rb.0), bits_nan_as_one(rb.1), b),
                        "qkx3 group {i} n {n} nmax {nmax}"
                    );
                }
            }
        }
    }
}

#[test]
fn qkx_lanes_simd_matches_scalar() {
    for n in [16usize, 32] {
        for (x, w) in search_groups(n, 3000, 41 + n as u64) {
            let min = x
                .iter()
                .copied()
                .fold(0f32, |m, v| if v < m { v } else { m });
            let max = x
                .iter()
                .copied()
                .fold(0f32, |m, v| if v > m { v } else { m });
            let (mut sum_w, mut sum_x) = (0f32, 0f32);
            for (&xi, &wi) in x.iter().zip(&w) {
                sum_w += wi;
                sum_x += wi * xi;
            }
            for (nmax, mad) in [(3, true), (15, false), (31, false)] {
                let g = ksearch::QkxGroup {
                    x: &x,
                    w: &w,
                    nmax,
                    sum_w,
                    sum_x,
                    mad,
                };
                for pass in 0..5 {
                    let mut a = ksearch::QkxLanes::new();
                    for (k, o) in a.num.iter_mut().enumerate() {
                        *o = -0.9 + 0.05 * (8 * pass + k) as f32 + nmax as f32;
                    }
                    a.len = 8 - pass % 2;
                    a.initial = pass == 0;
                    let mut b = ksearch::QkxLanes::new();
                    (b.num, b.len, b.initial) = (a.num, a.len, a.initial);
                    if !simd::qkx_lanes(&g, min, max, &mut a) {
                        return;
                    }
                    ksearch::qkx_lanes_scalar(&g, min, max, &mut b);
                    for k in 0..a.len {
                        let bits = |c: &ksearch::QkxLanes| {
                            [c.d[k], c.scale[k], c.min[k], c.err[k]].map(bits_nan_as_one)
                        };
                        assert_eq!(bits(&a), bits(&b), "lane {k} of {x:?} {w:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn q3_groups_simd_matches_make_q3_quants() {
    for b in 0..600 {
        let mut x = Vec::with_capacity(256);
        for (g, (xg, _)) in search_groups(16, 16, 51 + b).into_iter().enumerate() {
            // mix the kinds of group within a block
            let k = (g + b as usize) % 16;
            x.extend(if k < 14 { xg } else { vec![0.0; 16] });
        }
        let (mut la, mut lb) = ([0i8; 256], [0i8; 256]);
        let (mut sa, mut sb) = ([0f32; 16], [0f32; 16]);
        if !simd::q3_groups(4, &x, &mut la, &mut sa) {
            return;
        }
        for j in 0..16 {
            sb[j] =
                kquants::make_q3_quants(4, &x[16 * j..16 * j + 16], &mut lb[16 * j..16 * j + 16]);
        }
        assert!(
            same_bits_nan_as_one(&sa, &sb) && la == lb,
            "block {b}: {x:?}"
        );
    }
}

#[test]
fn requant_groups16_simd_matches_scalar() {
    for b in 0..400u64 {
        let mut x = Vec::with_capacity(256);
        for (xg, _) in search_groups(16, 16, 61 + b) {
            x.extend(xg);
        }
        let mut rng = Rng::new(b);
        let d: [f32; 16] = std::array::from_fn(|j| match (j as u64 + b) % 5 {
            0 => 0.0,
            1 => -0.0,
            2 => f32::from_bits((rng.next_u64() >> 32) as u32),
            _ => ((rng.next_u64() % 200) as f32 - 100.0) * 0.01,
        });
        for (lo, hi) in [(-4, 3), (-32, 31)] {
            let (mut la, mut lb) = ([7i8; 256], [7i8; 256]);
            if !simd::requant_groups16(&x, &d, lo, hi, &mut la) {
                return;
            }
            kquants::requant_groups16_scalar(&x, &d, lo, hi, &mut lb);
            assert_eq!(la, lb, "block {b}");
        }
    }
}

/// The vector element decoders round and keep NaNs as `as f32` does: payloads, infinities,
/// f64 values past f32's range or below its smallest subnormal, i32s that f32 cannot hold.
#[test]
fn element_simd_matches_scalar_on_edge_values() {
    let f64s = [
        f64::from_bits(0x7ff0_0000_0000_0001), // signalling NaN
        f64::from_bits(0xfff8_0000_dead_beef), // quiet NaN with a payload
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::from(f32::MAX) * 1.000_000_1,
        -f64::from(f32::MAX) * 1.000_000_1,
        1e-46,
        -1e-50,
        f64::from_bits(0x3ff0_0000_1000_0000), // exactly half an f32 ulp above 1
        f64::from_bits(0x3ff0_0000_3000_0000), // half an ulp above 1 + 2^-23
        f64::MIN_POSITIVE,
        -0.0,
        1.0 / 3.0,
        123_456_789.123,
        f64::MAX,
        f64::from(f32::MIN_POSITIVE) / 3.0,
    ];
    let i32s = [
        i32::MAX,
        i32::MIN,
        16_777_217,
        -16_777_217,
        16_777_219,
        0x7fff_ffc0,
        -1,
        0,
    ];
    let f64_data: Vec<u8> = f64s.iter().flat_map(|v| v.to_le_bytes()).collect();
    let i32_data: Vec<u8> = i32s.iter().flat_map(|v| v.to_le_bytes()).collect();
    type Case<'a> = (&'a [u8], usize, DequantFn, DequantFn);
    let cases: [Case; 2] = [
        (
            &f64_data,
            f64s.len(),
            float::dequant_f64,
            float::dequant_f64_scalar,
        ),
        (
            &i32_data,
            i32s.len(),
            float::dequant_i32,
            float::dequant_i32_scalar,
        ),
    ];
    for (data, n, fast, scalar) in cases {
        let (mut a, mut b) = (vec![0f32; n], vec![0f32; n]);
        fast(data, &mut a);
        scalar(data, &mut b);
        assert!(same_bits(&a, &b), "{a:?} against {b:?}");
    }
}
