//! `--outtype` and the script's rules for each tensor's type: which tensors stay f32 (1-D
//! tensors, norms, routers, anything not a `.weight`), which stay f16 under the ternary types
//! (embeddings and output), the fallback to f16 when a row does not fill whole blocks, and the
//! element conversions, bit for bit as numpy and gguf-py's `quants.py` compute them.
#![forbid(unsafe_code)]

use std::str::FromStr;

use rayon::prelude::*;

use crate::convert::safetensors::Dtype;
use crate::error::CheckpointError;
use crate::quant::{f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::types::GgmlType;

/// The `--outtype` of the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutType {
    /// Every tensor f32.
    F32,
    /// Mostly f16.
    F16,
    /// Mostly bf16.
    BF16,
    /// Mostly q8_0.
    Q8_0,
    /// Mostly tq1_0 (ternary).
    TQ1_0,
    /// Mostly tq2_0 (ternary).
    TQ2_0,
    /// The checkpoint's own 16-bit type: bf16 or f16 from the first tensor of two or more
    /// dimensions, f16 otherwise.
    Auto,
}

impl OutType {
    /// Every name `--outtype` accepts.
    pub const NAMES: [&'static str; 7] = ["f32", "f16", "bf16", "q8_0", "tq1_0", "tq2_0", "auto"];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OutType::F32 => "f32",
            OutType::F16 => "f16",
            OutType::BF16 => "bf16",
            OutType::Q8_0 => "q8_0",
            OutType::TQ1_0 => "tq1_0",
            OutType::TQ2_0 => "tq2_0",
            OutType::Auto => "auto",
        }
    }

    /// `Auto` made definite from the dtype of the first tensor of two or more dimensions that is
    /// bf16 or f16 (`None` when there is none).
    pub fn resolve(self, first_matrix: Option<Dtype>) -> OutType {
        match (self, first_matrix) {
            (OutType::Auto, Some(Dtype::BF16)) => OutType::BF16,
            (OutType::Auto, _) => OutType::F16,
            (t, _) => t,
        }
    }

    /// The `general.file_type` written (llama.cpp's `llama_ftype`).
    pub fn file_type(self) -> u32 {
        match self {
            OutType::F32 => 0,
            OutType::F16 | OutType::Auto => 1,
            OutType::Q8_0 => 7,
            OutType::BF16 => 32,
            OutType::TQ1_0 => 36,
            OutType::TQ2_0 => 37,
        }
    }

    /// The type of most tensors.
    fn main_type(self) -> GgmlType {
        match self {
            OutType::F32 => GgmlType::F32,
            OutType::F16 | OutType::Auto => GgmlType::F16,
            OutType::BF16 => GgmlType::BF16,
            OutType::Q8_0 => GgmlType::Q8_0,
            OutType::TQ1_0 => GgmlType::TQ1_0,
            OutType::TQ2_0 => GgmlType::TQ2_0,
        }
    }
}

impl FromStr for OutType {
    type Err = CheckpointError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "f32" => OutType::F32,
            "f16" => OutType::F16,
            "bf16" => OutType::BF16,
            "q8_0" => OutType::Q8_0,
            "tq1_0" => OutType::TQ1_0,
            "tq2_0" => OutType::TQ2_0,
            "auto" => OutType::Auto,
            _ => {
                return Err(CheckpointError::Option(format!(
                    "--outtype '{s}' is not one of {}",
                    OutType::NAMES.join(", ")
                )))
            }
        })
    }
}

/// What the type rules need to know of a tensor besides its name and shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TensorRole {
    /// One the script always keeps in f32 (an expert router `ffn_gate_inp`, position
    /// embeddings...).
    pub always_f32: bool,
    /// The token embedding or the output projection (f16 under the ternary types).
    pub embedding_or_output: bool,
}

/// The GGUF type of a tensor named `name` (the GGUF name) of `shape` (outermost first) under
/// `out` (resolved), as the script's `prepare_tensors` decides it, including its fallback to f16
/// when the rows do not fill whole blocks.
pub fn tensor_type(out: OutType, name: &str, shape: &[u64], role: TensorRole) -> GgmlType {
    let n_dims = shape.len();
    // 1-D tensors and norms; routers and the like; anything not a weight matrix
    let keep_f32 = n_dims <= 1
        || name.ends_with("_norm.weight")
        || role.always_f32
        || !(name.ends_with(".weight") || name.ends_with(".lora_a") || name.ends_with(".lora_b"));
    let ty = if keep_f32 {
        GgmlType::F32
    } else if role.embedding_or_output && matches!(out, OutType::TQ1_0 | OutType::TQ2_0) {
        GgmlType::F16
    } else {
        out.main_type()
    };
    let block = ty.block_size();
    let row = shape.last().copied().unwrap_or(1);
    if block > 1 && row % block != 0 {
        GgmlType::F16
    } else {
        ty
    }
}

/// A tensor's elements while it is transformed: f16 stays f16 (torch keeps it), every other
/// source dtype becomes f32 (as the script's `.to(torch.float32)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Elements {
    /// f16 bits.
    F16(Vec<u16>),
    /// f32 values.
    F32(Vec<f32>),
}

impl Elements {
    /// Decodes little-endian source bytes of `dtype` (f32, f16, bf16, or FP8 without a scale).
    pub fn decode(dtype: Dtype, bytes: &[u8]) -> Option<Elements> {
        Some(match dtype {
            Dtype::F8E4M3 | Dtype::F8E5M2 => {
                Elements::F32(crate::convert::fp8::decode_unscaled(dtype, bytes)?)
            }
            Dtype::F32 => Elements::F32(
                bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            Dtype::F16 => Elements::F16(
                bytes
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            ),
            Dtype::BF16 => Elements::F32(
                bytes
                    .chunks_exact(2)
                    .map(|c| f32::from_bits(u32::from(u16::from_le_bytes([c[0], c[1]])) << 16))
                    .collect(),
            ),
            _ => return None,
        })
    }

    /// The element count.
    pub fn len(&self) -> usize {
        match self {
            Elements::F16(v) => v.len(),
            Elements::F32(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as f32 (f16 widened exactly).
    pub fn to_f32(&self) -> Vec<f32> {
        match self {
            Elements::F16(v) => v.par_iter().map(|&h| f16_to_f32(h)).collect(),
            Elements::F32(v) => v.clone(),
        }
    }

    /// Reorders whole rows of `row_len` elements: output row `i` is input row `order[i]`.
    pub fn permute_rows(&self, row_len: usize, order: &[usize]) -> Elements {
        fn go<T: Copy>(v: &[T], row_len: usize, order: &[usize]) -> Vec<T> {
            let mut out = Vec::with_capacity(v.len());
            for &r in order {
                out.extend_from_slice(&v[r * row_len..(r + 1) * row_len]);
            }
            out
        }
        match self {
            Elements::F16(v) => Elements::F16(go(v, row_len, order)),
            Elements::F32(v) => Elements::F32(go(v, row_len, order)),
        }
    }

    /// The elements `range` (whole rows of a split).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Elements {
        match self {
            Elements::F16(v) => Elements::F16(v[range].to_vec()),
            Elements::F32(v) => Elements::F32(v[range].to_vec()),
        }
    }

    /// Concatenates parts of one kind (expert stacking); mixed kinds widen to f32, as torch's
    /// type promotion does.
    pub fn concat(parts: Vec<Elements>) -> Elements {
        if parts.iter().all(|p| matches!(p, Elements::F16(_))) {
            let mut out = Vec::new();
            for p in parts {
                if let Elements::F16(v) = p {
                    out.extend(v);
                }
            }
            return Elements::F16(out);
        }
        let mut out = Vec::new();
        for p in parts {
            out.extend(p.to_f32());
        }
        Elements::F32(out)
    }

    /// Adds `x` to every element in the elements' own precision, as torch's `tensor + x` does
    /// on the CPU: an f16 element is widened, added in f32 and rounded back.
    pub fn add_scalar(&mut self, x: f32) {
        match self {
            Elements::F16(v) => v
                .par_iter_mut()
                .for_each(|h| *h = numpy_f32_to_f16(f16_to_f32(*h) + x)),
            Elements::F32(v) => v.par_iter_mut().for_each(|f| *f += x),
        }
    }

    /// Encodes as `ty`: the bytes the script writes.
    pub fn encode(&self, ty: GgmlType) -> crate::Result<Vec<u8>> {
        Ok(match (ty, self) {
            (GgmlType::F32, _) => self.to_f32().iter().flat_map(|f| f.to_le_bytes()).collect(),
            (GgmlType::F16, Elements::F16(v)) => v.iter().flat_map(|h| h.to_le_bytes()).collect(),
            (GgmlType::F16, Elements::F32(v)) => {
                let mut out = vec![0u8; v.len() * 2];
                out.par_chunks_mut(8192)
                    .zip(v.par_chunks(4096))
                    .for_each(|(o, s)| {
                        for (b, &f) in o.chunks_exact_mut(2).zip(s) {
                            b.copy_from_slice(&numpy_f32_to_f16(f).to_le_bytes());
                        }
                    });
                out
            }
            (GgmlType::BF16, _) => self
                .to_f32()
                .iter()
                .flat_map(|&f| f32_to_bf16(f).to_le_bytes())
                .collect(),
            (ty, _) => {
                let f = self.to_f32();
                let block = ty.block_size() as usize;
                let bytes = f.len() / block * ty.type_size() as usize;
                let mut out = vec![0u8; bytes];
                crate::quant::quantize_par(ty, &f, &mut out)?;
                if ty == GgmlType::Q8_0 {
                    numpy_q8_0_nan_blocks(&f, &mut out);
                }
                out
            }
        })
    }
}

/// A q8_0 block holding a NaN as gguf-py's numpy quantizer writes it: its scale numpy's NaN
/// (`abs(block).max()` propagates it) as f16, `0x7e00`, and every quant 0 (NaN cast to int8),
/// where ggml's `fmaxf` would pass the NaN over.
fn numpy_q8_0_nan_blocks(values: &[f32], out: &mut [u8]) {
    let block = GgmlType::Q8_0.block_size() as usize;
    let size = GgmlType::Q8_0.type_size() as usize;
    for (v, o) in values.chunks_exact(block).zip(out.chunks_exact_mut(size)) {
        if v.iter().any(|x| x.is_nan()) {
            o.fill(0);
            o[..2].copy_from_slice(&0x7e00u16.to_le_bytes());
        }
    }
}

/// f32 → f16 as numpy's `astype(np.float16)`: round to nearest even, overflow to infinity; a NaN
/// keeps the top of its payload (never becoming an infinity).
pub fn numpy_f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    if x & 0x7fff_ffff > 0x7f80_0000 {
        let sign = ((x >> 16) & 0x8000) as u16;
        let mut h = 0x7c00u16 + ((x & 0x007f_ffff) >> 13) as u16;
        if h == 0x7c00 {
            h += 1;
        }
        return sign | h;
    }
    f32_to_f16(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_rules_follow_the_script() {
        let r = TensorRole::default();
        assert_eq!(
            tensor_type(OutType::Q8_0, "blk.0.attn_norm.weight", &[64], r),
            GgmlType::F32
        );
        assert_eq!(
            tensor_type(OutType::Q8_0, "blk.0.attn_q.weight", &[64, 64], r),
            GgmlType::Q8_0
        );
        assert_eq!(
            tensor_type(OutType::Q8_0, "blk.0.attn_q.weight", &[64, 48], r),
            GgmlType::F16
        );
        assert_eq!(
            tensor_type(OutType::BF16, "blk.0.attn_q.bias", &[64, 64], r),
            GgmlType::F32
        );
        let embd = TensorRole {
            embedding_or_output: true,
            ..r
        };
        assert_eq!(
            tensor_type(OutType::TQ2_0, "token_embd.weight", &[512, 256], embd),
            GgmlType::F16
        );
        assert_eq!(
            tensor_type(OutType::TQ2_0, "blk.0.ffn_up.weight", &[512, 256], r),
            GgmlType::TQ2_0
        );
        let router = TensorRole {
            always_f32: true,
            ..r
        };
        assert_eq!(
            tensor_type(OutType::F16, "blk.0.ffn_gate_inp.weight", &[4, 64], router),
            GgmlType::F32
        );
        assert_eq!(OutType::Auto.resolve(Some(Dtype::BF16)), OutType::BF16);
        assert_eq!(OutType::Auto.resolve(Some(Dtype::F32)), OutType::F16);
    }

    #[test]
    fn f16_conversion_is_numpys() {
        assert_eq!(numpy_f32_to_f16(1.0), 0x3c00);
        assert_eq!(numpy_f32_to_f16(65520.0), 0x7c00);
        assert_eq!(numpy_f32_to_f16(f32::from_bits(0x7f80_0001)), 0x7c01);
        assert_eq!(numpy_f32_to_f16(f32::from_bits(0xffc0_0000)), 0xfe00);
        let mut e = Elements::F16(vec![0x3c00, 0x1000, 0x1400]);
        e.add_scalar(1.0);
        // 1 + 2^-11 is a tie: to even; 1 + 2^-10 is exact
        assert_eq!(e, Elements::F16(vec![0x4000, 0x3c00, 0x3c01]));
    }
}
