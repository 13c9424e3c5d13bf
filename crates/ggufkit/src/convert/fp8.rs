//! Scaled checkpoints (FP8 weights and their scales), dequantized as the script's `dequant_model`
//! does before anything else sees the tensors: `quantization_config.quant_method` names how the
//! scales are stored, each scale is paired with its weight by name and taken out of the tensor
//! list, and the weight becomes `weight.float() * scale.float()` in f32, the scale repeated over
//! its blocks (`weight_block_size`, cut to the weight's shape) or broadcast (one per tensor, per
//! row). The methods read:
//!
//! - `fp8`: `<weight>_scale_inv` (and the Mistral format's `.qscale_weight`), blocks of
//!   `weight_block_size`; `.activation_scale`, `_activation_scale` and `.qscale_act` dropped;
//! - `compressed-tensors` in the `float-quantized`, `int-quantized` and `naive-quantized`
//!   formats: `<weight>_scale`, blocks of the weights' `block_structure`, one config group, the
//!   `channel` or `block` strategy;
//! - `modelopt`: `<weight>_scale` broadcast (FP8 per tensor or per channel); `.input_scale`,
//!   `.k_scale`, `.v_scale` dropped.
//!
//! Other methods (gptq, bitnet, NVFP4, MXFP4...) are refused by name, as is a folder with
//! `hf_quant_config.json`. Where the script would go on, this conversion refuses: a scaled
//! method's FP8 weight without a scale (the script would write its raw values), a scale without
//! its weight, a scale whose shape does not cover its weight; each error names the file and the
//! tensor. Without a `quantization_config` an FP8 tensor is cast to f32 as it is (the script's
//! `.to(torch.float32)`).
//!
//! The dequantization reads a weight line by line (a line: the innermost dimension at fixed outer
//! indexes), each line's scales straight from the mapped scale tensor: memory holds the lines
//! asked for, never the tensor. The element conversions are torch's, NaN payloads included.
#![forbid(unsafe_code)]

use std::path::Path;

use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::convert::folder::SourceTensor;
use crate::convert::safetensors::{Dtype, SafetensorsFile, TensorEntry};
use crate::error::CheckpointError;
use crate::quant::f16_to_f32;

/// How a checkpoint stores its scales (`quantization_config.quant_method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `fp8`: `_scale_inv` block scales.
    Fp8,
    /// `compressed-tensors` (float, int or naive quantized): `.weight_scale`.
    CompressedTensors,
    /// `modelopt` (FP8): `.weight_scale`, broadcast.
    ModelOpt,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Fp8 => "fp8",
            Method::CompressedTensors => "compressed-tensors",
            Method::ModelOpt => "modelopt",
        }
    }
}

/// A checkpoint's quantization: the method and the block of its scales.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheme {
    /// How the scales are named.
    pub method: Method,
    /// The block each scale covers, innermost dimensions last (`None`: broadcast).
    pub block: Option<Vec<u64>>,
}

/// How one dimension of a weight finds its scale: the weight's index divided by `div`, times
/// `stride` in the scale (0: the scale is broadcast along it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ScaleDim {
    div: u64,
    stride: u64,
}

/// The scale of a weight: where it is and how the weight's indexes find it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// The scale's (filtered) name.
    pub name: String,
    /// The shard holding it.
    pub shard: usize,
    /// Its entry in that shard.
    pub entry: TensorEntry,
    dims: Vec<ScaleDim>,
}

/// The scheme of `config` (config.json, `text_config` lifted); `None` without a
/// `quantization_config` object or without its `quant_method`.
pub fn scheme(dir: &Path, config: &Map<String, Value>) -> Result<Option<Scheme>, CheckpointError> {
    let config_path = dir.join("config.json");
    let bad = |problem: String| CheckpointError::Json {
        path: config_path.clone(),
        problem,
    };
    let hf_quant = dir.join("hf_quant_config.json");
    let Some(Value::Object(q)) = config.get("quantization_config") else {
        if hf_quant.is_file() {
            return Err(CheckpointError::Folder {
                path: hf_quant,
                problem: "ModelOpt's hf_quant_config.json is not read (NVFP4 and its FP8 layers are not converted)".into(),
            });
        }
        return Ok(None);
    };
    let method = match q.get("quant_method") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(m)) => m.as_str(),
        Some(_) => {
            return Err(bad(
                "key 'quantization_config.quant_method': not a string".into()
            ))
        }
    };
    let refuse = |what: String| {
        bad(format!(
            "{what} is not converted (quant_method fp8, compressed-tensors float-quantized and modelopt FP8 are)"
        ))
    };
    if hf_quant.is_file() {
        return Err(CheckpointError::Folder {
            path: hf_quant,
            problem: "ModelOpt's hf_quant_config.json is not read (NVFP4 and its FP8 layers are not converted)".into(),
        });
    }
    let block_of = |v: Option<&Value>, key: &str| -> Result<Option<Vec<u64>>, CheckpointError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) if !a.is_empty() => a
                .iter()
                .map(|d| d.as_u64().filter(|&d| d > 0))
                .collect::<Option<Vec<u64>>>()
                .map(Some)
                .ok_or_else(|| bad(format!("key '{key}': not a list of positive whole numbers"))),
            Some(_) => Err(bad(format!(
                "key '{key}': not a list of positive whole numbers"
            ))),
        }
    };
    Ok(Some(match method {
        "fp8" => Scheme {
            method: Method::Fp8,
            block: block_of(
                q.get("weight_block_size"),
                "quantization_config.weight_block_size",
            )?,
        },
        "compressed-tensors" => {
            let format = q.get("format").and_then(Value::as_str).unwrap_or("");
            if !matches!(
                format,
                "float-quantized" | "int-quantized" | "naive-quantized"
            ) {
                return Err(refuse(format!(
                    "quantization_config.format '{format}' of compressed-tensors"
                )));
            }
            let groups = q
                .get("config_groups")
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    bad("key 'quantization_config.config_groups': not an object".into())
                })?;
            if groups.len() != 1 {
                return Err(refuse(format!(
                    "compressed-tensors with {} config groups",
                    groups.len()
                )));
            }
            let weights = groups
                .values()
                .next()
                .and_then(|g| g.get("weights"))
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    bad("key 'quantization_config.config_groups.*.weights': not an object".into())
                })?;
            let strategy = weights
                .get("strategy")
                .and_then(Value::as_str)
                .unwrap_or("");
            if strategy != "channel" && strategy != "block" {
                return Err(refuse(format!(
                    "compressed-tensors weight strategy '{strategy}'"
                )));
            }
            if weights.get("group_size").is_some_and(|g| !g.is_null()) {
                return Err(refuse("compressed-tensors with a group_size".into()));
            }
            Scheme {
                method: Method::CompressedTensors,
                block: block_of(
                    weights.get("block_structure"),
                    "quantization_config.config_groups.*.weights.block_structure",
                )?,
            }
        }
        "modelopt" => {
            let algo = q.get("quant_algo").and_then(Value::as_str).unwrap_or("");
            if algo.contains("NVFP4") {
                return Err(refuse(format!("modelopt quant_algo '{algo}'")));
            }
            Scheme {
                method: Method::ModelOpt,
                block: None,
            }
        }
        other => {
            return Err(refuse(format!(
                "quantization_config.quant_method '{other}'"
            )))
        }
    }))
}

/// What a name is under `method`.
enum Role {
    /// The scale of the weight named.
    ScaleOf(String),
    /// A tensor the script drops (activation scales).
    Dropped,
    /// Anything else.
    Other,
}

fn role(method: Method, name: &str) -> Role {
    match method {
        Method::Fp8 => {
            if let Some(w) = name.strip_suffix("_scale_inv") {
                Role::ScaleOf(w.to_string())
            } else if let Some(base) = name.strip_suffix("qscale_weight") {
                Role::ScaleOf(format!("{base}weight"))
            } else if name.ends_with(".activation_scale")
                || name.ends_with("_activation_scale")
                || name.ends_with(".qscale_act")
            {
                Role::Dropped
            } else {
                Role::Other
            }
        }
        Method::CompressedTensors | Method::ModelOpt => {
            if name.ends_with(".weight_scale") {
                Role::ScaleOf(name.trim_end_matches("_scale").to_string())
            } else if method == Method::ModelOpt
                && (name.ends_with(".input_scale")
                    || name.ends_with(".k_scale")
                    || name.ends_with(".v_scale"))
            {
                Role::Dropped
            } else {
                Role::Other
            }
        }
    }
}

/// True for the FP8 dtypes.
pub fn is_fp8(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::F8E4M3 | Dtype::F8E5M2)
}

/// The tensors of a folder once `scheme` is applied: each scale taken out and attached to its
/// weight, the activation scales dropped; the others keep their places.
pub fn attach_scales(
    scheme: &Scheme,
    tensors: Vec<SourceTensor>,
    shards: &[SafetensorsFile],
) -> Result<Vec<SourceTensor>, CheckpointError> {
    let path_of = |t: &SourceTensor| shards[t.shard].path().to_path_buf();
    let mut scales: Vec<(String, SourceTensor)> = Vec::new();
    let mut kept: Vec<SourceTensor> = Vec::with_capacity(tensors.len());
    for t in tensors {
        match role(scheme.method, &t.name) {
            Role::ScaleOf(w) => scales.push((w, t)),
            Role::Dropped => {}
            Role::Other => kept.push(t),
        }
    }
    let mut position: std::collections::HashMap<String, usize> = kept
        .iter()
        .enumerate()
        .map(|(i, t)| (t.name.clone(), i))
        .collect();
    for (weight, s) in scales {
        let Some(&i) = position.get(&weight) else {
            if scheme.method == Method::ModelOpt {
                // the script drops a ModelOpt scale whose weight is absent
                continue;
            }
            return Err(CheckpointError::Tensor {
                path: path_of(&s),
                tensor: s.entry.name.clone(),
                problem: format!("a scale of weight '{weight}', which is absent"),
            });
        };
        if !matches!(s.entry.dtype, Dtype::F32 | Dtype::F16 | Dtype::BF16) {
            return Err(CheckpointError::Tensor {
                path: path_of(&s),
                tensor: s.entry.name.clone(),
                problem: format!(
                    "scale of dtype {} is not converted (F32, F16 and BF16 are)",
                    s.entry.dtype.name()
                ),
            });
        }
        let w = &kept[i];
        if !matches!(
            w.entry.dtype,
            Dtype::F8E4M3 | Dtype::F8E5M2 | Dtype::I8 | Dtype::F32 | Dtype::F16 | Dtype::BF16
        ) {
            return Err(CheckpointError::Tensor {
                path: path_of(w),
                tensor: w.entry.name.clone(),
                problem: format!(
                    "scaled weight of dtype {} is not converted (F8_E4M3, F8_E5M2, I8 and the floats are)",
                    w.entry.dtype.name()
                ),
            });
        }
        let dims = scale_dims(&w.entry.shape, &s.entry.shape, scheme.block.as_deref()).ok_or_else(
            || CheckpointError::Tensor {
                path: path_of(&s),
                tensor: s.entry.name.clone(),
                problem: format!(
                    "shape {:?} does not scale weight '{}' of shape {:?}{}",
                    s.entry.shape,
                    weight,
                    w.entry.shape,
                    match &scheme.block {
                        Some(b) => format!(" in blocks of {b:?}"),
                        None => " (one scale, or one per row)".into(),
                    }
                ),
            },
        )?;
        if kept[i].scale.is_some() {
            return Err(CheckpointError::Tensor {
                path: path_of(&s),
                tensor: s.entry.name.clone(),
                problem: format!("weight '{weight}' has two scales"),
            });
        }
        kept[i].scale = Some(Box::new(Scale {
            name: s.name.clone(),
            shard: s.shard,
            entry: s.entry.clone(),
            dims,
        }));
    }
    position.clear();
    if let Some(w) = kept
        .iter()
        .find(|t| is_fp8(t.entry.dtype) && t.scale.is_none())
    {
        return Err(CheckpointError::Tensor {
            path: path_of(w),
            tensor: w.entry.name.clone(),
            problem: format!(
                "dtype {} without its scale (quantization_config.quant_method '{}' names one per weight)",
                w.entry.dtype.name(),
                scheme.method.name()
            ),
        });
    }
    Ok(kept)
}

/// How each dimension of a weight of shape `w` finds its scale in a scale of shape `s`, as
/// torch's `repeat_interleave` over `block`, the cut to the weight's shape and broadcasting
/// give it; `None` when torch would fail (or broadcast the weight to a larger shape).
fn scale_dims(w: &[u64], s: &[u64], block: Option<&[u64]>) -> Option<Vec<ScaleDim>> {
    let n = w.len();
    // the scale's shape and the block along each of the weight's dimensions
    let (shape, reps): (Vec<u64>, Vec<u64>) = match block {
        Some(b) => {
            if s.len() != n || b.len() > n {
                return None;
            }
            let offset = n - b.len();
            let reps: Vec<u64> = (0..n)
                .map(|d| if d >= offset { b[d - offset] } else { 1 })
                .collect();
            (s.to_vec(), reps)
        }
        None => {
            if s.len() > n {
                return None;
            }
            let mut shape = s.to_vec();
            shape.resize(n, 1);
            (shape, vec![1; n])
        }
    };
    // row-major strides of the scale as stored
    let mut strides = vec![0u64; n];
    let mut acc = 1u64;
    for d in (0..n).rev() {
        strides[d] = acc;
        acc = acc.checked_mul(shape[d])?;
    }
    (0..n)
        .map(|d| {
            // repeated blocks are cut to the weight's shape; a broadcast scale is not cut
            let repeated = shape[d].checked_mul(reps[d])?;
            let covered = if block.is_some() {
                repeated.min(w[d])
            } else {
                repeated
            };
            if covered == w[d] {
                Some(ScaleDim {
                    div: reps[d],
                    stride: strides[d],
                })
            } else if covered == 1 {
                Some(ScaleDim { div: 1, stride: 0 })
            } else {
                None
            }
        })
        .collect()
}

/// The elements of a line of a tensor of `shape`: its innermost dimension (one element for a
/// tensor of one dimension or none).
pub fn line_len(shape: &[u64]) -> usize {
    if shape.len() >= 2 {
        shape.last().copied().unwrap_or(1) as usize
    } else {
        1
    }
}

/// The lines of a tensor of `shape` (see [`line_len`]).
pub fn line_count(shape: &[u64]) -> usize {
    let outer = if shape.len() >= 2 {
        &shape[..shape.len() - 1]
    } else {
        shape
    };
    outer.iter().product::<u64>() as usize
}

/// `lines` of `weight` (its bytes, `dtype`, `shape`) dequantized by `scale` (`scale_bytes` its
/// bytes): `weight.float() * scale` element by element, in f32, appended to `out`.
pub fn dequantize_lines(
    weight: &[u8],
    dtype: Dtype,
    shape: &[u64],
    scale: &Scale,
    scale_bytes: &[u8],
    lines: &[usize],
    out: &mut Vec<f32>,
) {
    let len = line_len(shape);
    let start = out.len();
    out.resize(start + lines.len() * len, 0.0);
    let size = dtype.size() as usize;
    let sdtype = scale.entry.dtype;
    let n = shape.len();
    out[start..]
        .par_chunks_mut(len.max(1))
        .zip(lines.par_iter())
        .for_each(|(o, &l)| {
            // the scale offset of the line's outer indexes
            let (base, inner) = if n >= 2 {
                let mut rest = l as u64;
                let mut base = 0u64;
                for d in (0..n - 1).rev() {
                    let i = rest % shape[d];
                    rest /= shape[d];
                    base += i / scale.dims[d].div * scale.dims[d].stride;
                }
                (base, scale.dims[n - 1])
            } else {
                (
                    0,
                    scale
                        .dims
                        .first()
                        .copied()
                        .unwrap_or(ScaleDim { div: 1, stride: 0 }),
                )
            };
            let first = if n >= 2 { 0 } else { l as u64 };
            let bytes = &weight[l * len * size..(l + 1) * len * size];
            let mut current = u64::MAX;
            let mut s = 0.0f32;
            for (j, (v, b)) in o.iter_mut().zip(bytes.chunks_exact(size)).enumerate() {
                let idx = base + (first + j as u64) / inner.div * inner.stride;
                if idx != current {
                    current = idx;
                    s = element(sdtype, scale_bytes, idx as usize);
                }
                *v = element(dtype, b, 0) * s;
            }
        });
}

/// Element `i` of little-endian `bytes` of `dtype` as torch's `.float()` gives it.
fn element(dtype: Dtype, bytes: &[u8], i: usize) -> f32 {
    let size = dtype.size() as usize;
    let b = &bytes[i * size..(i + 1) * size];
    match dtype {
        Dtype::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        Dtype::F16 => f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
        Dtype::BF16 => f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16),
        Dtype::F8E4M3 => e4m3fn_to_f32(b[0]),
        Dtype::F8E5M2 => e5m2_to_f32(b[0]),
        Dtype::I8 => f32::from(b[0] as i8),
        _ => f32::NAN,
    }
}

/// FP8 E4M3 (torch's `float8_e4m3fn`: no infinities, NaN at all ones) to f32, as torch casts
/// it: exact, the NaN becoming `0x7ff00000` with the byte's sign.
pub fn e4m3fn_to_f32(b: u8) -> f32 {
    let sign = u32::from(b & 0x80) << 24;
    let e = u32::from((b >> 3) & 0xf);
    let m = u32::from(b & 7);
    if e == 0xf && m == 7 {
        return f32::from_bits(sign | 0x7ff0_0000);
    }
    if e == 0 {
        // zero and the subnormals, m × 2^-9
        let v = m as f32 * (1.0 / 512.0);
        return f32::from_bits(sign | v.to_bits());
    }
    f32::from_bits(sign | ((e + 120) << 23) | (m << 20))
}

/// FP8 E5M2 (the upper byte of an f16) to f32, as torch casts it: exact, a NaN quietened.
pub fn e5m2_to_f32(b: u8) -> f32 {
    let h = u16::from(b) << 8;
    if h & 0x7c00 == 0x7c00 && h & 0x03ff != 0 {
        let sign = u32::from(h & 0x8000) << 16;
        return f32::from_bits(sign | 0x7fc0_0000 | (u32::from(h & 0x03ff) << 13));
    }
    f16_to_f32(h)
}

/// The f32 values of unscaled FP8 bytes (the script's `.to(torch.float32)`).
pub fn decode_unscaled(dtype: Dtype, bytes: &[u8]) -> Option<Vec<f32>> {
    match dtype {
        Dtype::F8E4M3 => Some(bytes.iter().map(|&b| e4m3fn_to_f32(b)).collect()),
        Dtype::F8E5M2 => Some(bytes.iter().map(|&b| e5m2_to_f32(b)).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp8_values_are_torchs() {
        // torch 2.15's float8_e4m3fn and float8_e5m2 `.to(torch.float32)`, checked byte by byte
        assert_eq!(e4m3fn_to_f32(0x00).to_bits(), 0);
        assert_eq!(e4m3fn_to_f32(0x01), 1.0 / 512.0);
        assert_eq!(e4m3fn_to_f32(0x38), 1.0);
        assert_eq!(e4m3fn_to_f32(0x7e), 448.0);
        assert_eq!(e4m3fn_to_f32(0xfe), -448.0);
        assert_eq!(e4m3fn_to_f32(0x7f).to_bits(), 0x7ff0_0000);
        assert_eq!(e4m3fn_to_f32(0xff).to_bits(), 0xfff0_0000);
        assert_eq!(e4m3fn_to_f32(0x80).to_bits(), 0x8000_0000);
        assert_eq!(e5m2_to_f32(0x3c), 1.0);
        assert_eq!(e5m2_to_f32(0x7b), 57344.0);
        assert_eq!(e5m2_to_f32(0x7c), f32::INFINITY);
        assert_eq!(e5m2_to_f32(0x7d).to_bits(), 0x7fe0_0000);
        assert_eq!(e5m2_to_f32(0x7e).to_bits(), 0x7fc0_0000);
        assert_eq!(e5m2_to_f32(0x7f).to_bits(), 0x7fe0_0000);
        assert_eq!(e5m2_to_f32(0xfe).to_bits(), 0xffc0_0000);
        assert_eq!(e5m2_to_f32(0x01), 2f32.powi(-16));
    }

    #[test]
    fn scale_shapes_follow_torchs_broadcasting() {
        let b = Some(&[2u64, 2][..]);
        // blocks, the last ones cut
        assert_eq!(
            scale_dims(&[4, 3], &[2, 2], b),
            Some(vec![
                ScaleDim { div: 2, stride: 2 },
                ScaleDim { div: 2, stride: 1 }
            ])
        );
        // too few blocks, a rank too few
        assert_eq!(scale_dims(&[4, 6], &[2, 2], b), None);
        assert_eq!(scale_dims(&[4, 4], &[2], b), None);
        // 3-D experts, blocks over the last two
        assert_eq!(
            scale_dims(&[3, 4, 4], &[3, 2, 2], b),
            Some(vec![
                ScaleDim { div: 1, stride: 4 },
                ScaleDim { div: 2, stride: 2 },
                ScaleDim { div: 2, stride: 1 }
            ])
        );
        // one per tensor, one per row
        assert_eq!(
            scale_dims(&[4, 3], &[], None),
            Some(vec![ScaleDim { div: 1, stride: 0 }; 2])
        );
        assert_eq!(
            scale_dims(&[4, 3], &[4, 1], None),
            Some(vec![
                ScaleDim { div: 1, stride: 1 },
                ScaleDim { div: 1, stride: 0 }
            ])
        );
        assert_eq!(
            scale_dims(&[4, 3], &[4], None),
            Some(vec![
                ScaleDim { div: 1, stride: 1 },
                ScaleDim { div: 1, stride: 0 }
            ])
        );
        assert_eq!(scale_dims(&[4, 3], &[3], None), None);
        assert_eq!(scale_dims(&[1, 3], &[4, 1], None), None);
    }

    #[test]
    fn lines_are_dequantized_by_their_blocks() {
        let w: Vec<u8> = vec![0x38; 12]; // 1.0 in e4m3fn, shape [4, 3]
        let s: Vec<u8> = [2.0f32, 3.0, 5.0, 7.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let entry = TensorEntry {
            name: "w_scale_inv".into(),
            dtype: Dtype::F32,
            shape: vec![2, 2],
            bytes: 0..16,
        };
        let scale = Scale {
            name: entry.name.clone(),
            shard: 0,
            dims: scale_dims(&[4, 3], &[2, 2], Some(&[2, 2])).unwrap(),
            entry,
        };
        let mut out = Vec::new();
        dequantize_lines(&w, Dtype::F8E4M3, &[4, 3], &scale, &s, &[3, 0], &mut out);
        assert_eq!(out, vec![5.0, 5.0, 7.0, 2.0, 2.0, 3.0]);
    }
}
