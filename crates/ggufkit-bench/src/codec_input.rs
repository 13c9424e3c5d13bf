//! The inputs of the codec benchmarks: a smooth pseudo-random signal to quantize, and valid
//! blocks of every type to dequantize (quantized from that signal by ggufkit itself).

use ggufkit::{quant, GgmlType};

/// Row length the signal is quantized with: a multiple of every block size (256 and 32).
pub const ROW: usize = 4096;

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// `n` floats in [-0.5, 0.5): a slow sine plus uniform noise, deterministic per `seed`.
pub fn signal(n: usize, seed: u64) -> Vec<f32> {
    let mut s = 0x1234_5678_9abc_def0u64 ^ seed;
    (0..n)
        .map(|i| {
            let noise = (xorshift(&mut s) >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
            0.5 * (i as f32 * 0.01).sin() * 0.5 + noise * 0.5
        })
        .collect()
}

/// Importance weights for one row of [`ROW`] columns: positive, varying by column.
pub fn importance() -> Vec<f32> {
    let mut s = 0x5eed_u64;
    (0..ROW)
        .map(|_| 0.25 + (xorshift(&mut s) >> 40) as f32 / (1u64 << 24) as f32)
        .collect()
}

/// `n` elements of `ty` as valid blocks: the signal quantized by ggufkit (with [`importance`]
/// for the types that need it), random bytes for the integer types. `n` must be a multiple of
/// [`ROW`] for the types quantized by rows. `None` when ggufkit cannot make blocks of `ty`.
pub fn blocks(ty: GgmlType, n: usize) -> Option<Vec<u8>> {
    let bytes = ty.bytes_for(n as u64)? as usize;
    if ty.is_integer() {
        let mut s = 0x0fed_cba9_8765_4321u64 ^ u64::from(ty.id());
        return Some((0..bytes).map(|_| (xorshift(&mut s) >> 56) as u8).collect());
    }
    let x = signal(n, u64::from(ty.id()));
    let mut q = vec![0u8; bytes];
    if quant::can_quantize(ty) {
        quant::quantize_par(ty, &x, &mut q).ok()?;
    } else {
        quant::quantize_rows_par(ty, &x, ROW, Some(&importance()), &mut q).ok()?;
    }
    Some(q)
}

/// `copies` repetitions of `blocks` back to back: a large input of valid blocks made cheaply.
pub fn repeat(blocks: &[u8], copies: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(blocks.len() * copies);
    for _ in 0..copies {
        v.extend_from_slice(blocks);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use ggufkit::Endian;

    #[test]
    fn blocks_of_every_dequantizable_type_decode() {
        for ty in GgmlType::supported().filter(|&t| quant::can_dequantize(t)) {
            let Some(b) = blocks(ty, ROW) else { continue };
            let y = quant::dequantize_to_vec(ty, &b, Endian::Little).expect("dequantize");
            assert_eq!(y.len(), ROW, "{ty}");
            if !ty.is_integer() {
                assert!(y.iter().all(|v| v.is_finite()), "{ty}");
            }
        }
    }
}
