//! A uniform conversion (`gguf convert --type T [--all]`) as a [`Plan`]: one type for every
//! tensor llama-quantize would quantize ([`quantizable`], its rule: `ggml_n_dims`, names ending
//! in `weight`, never the norms, routers and positional tensors), or with `all` for every tensor
//! that can be converted. Nothing else changes: the input's metadata, tensor order and (unless
//! asked otherwise) byte order are kept. The executor ([`convert_file`](super::convert_file))
//! writes it; the plan says what was left as it was, and why ([`Plan::skipped`]).
#![forbid(unsafe_code)]

use std::fmt;

use super::input::Input;
use super::names::{quantizable, NotQuantized};
use super::plan::{size_in, tensors_of, Plan, PlanKind, PlannedTensor, Reason, TensorDesc};
use crate::endian::Endian;
use crate::error::{Result, WriteError};
use crate::quant;
use crate::read::Gguf;
use crate::types::GgmlType;

/// What a uniform conversion is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniformOptions {
    /// The type the tensors are converted to.
    pub ty: GgmlType,
    /// Every tensor whose rows are whole blocks of `ty`, 1-D ones and those llama-quantize
    /// never quantizes included.
    pub all: bool,
    /// The byte order of the output (`None`: the input's).
    pub endian: Option<Endian>,
}

/// Why a uniform conversion leaves a tensor as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// It already has the type.
    AlreadyThatType,
    /// An integer tensor (i8..i64).
    Integer,
    /// Its type has no float form.
    NoFloatForm,
    /// Without `all`: llama-quantize does not quantize it.
    NotQuantized(NotQuantized),
    /// Its first dimension (`ne0`, given) is not a multiple of the type's block size.
    RowsDoNotFit(u64),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::AlreadyThatType => f.write_str("already that type"),
            SkipReason::Integer => f.write_str("an integer tensor"),
            SkipReason::NoFloatForm => f.write_str("its type has no float form"),
            SkipReason::NotQuantized(NotQuantized::OneDimensional) => {
                f.write_str("one dimension, as norms and biases")
            }
            SkipReason::NotQuantized(NotQuantized::NotAWeight) => {
                f.write_str("a name not ending in weight")
            }
            SkipReason::NotQuantized(NotQuantized::Excluded(part)) => {
                write!(f, "llama-quantize never quantizes {part}")
            }
            SkipReason::NotQuantized(NotQuantized::Copy) => f.write_str("COPY"),
            SkipReason::NotQuantized(NotQuantized::OutputLeft) => {
                f.write_str("--leave-output-tensor")
            }
            SkipReason::RowsDoNotFit(ne0) => {
                write!(f, "rows of {ne0} are not whole blocks of the type")
            }
        }
    }
}

/// Whether the conversion to `ty` converts tensor `d`, and if not, why.
fn decide(d: &TensorDesc, ty: GgmlType, all: bool) -> Result<(), SkipReason> {
    if d.ty == ty {
        return Err(SkipReason::AlreadyThatType);
    }
    if d.ty.is_integer() {
        return Err(SkipReason::Integer);
    }
    if !quant::can_dequantize(d.ty) {
        return Err(SkipReason::NoFloatForm);
    }
    if !all {
        quantizable(&d.name, &d.shape, false, false).map_err(SkipReason::NotQuantized)?;
    }
    let ne0 = d.shape.first().copied().unwrap_or(1);
    if ne0 % ty.block_size() != 0 {
        return Err(SkipReason::RowsDoNotFit(ne0));
    }
    Ok(())
}

/// The plan converting `g`'s tensors to `opts.ty`: those llama-quantize quantizes (all of them
/// with `opts.all`) whose rows are whole blocks of the type, whose type is not already it, has
/// a float form and is not an integer type. Every tensor is in the plan, in file order; those
/// left as they are carry [`Reason::Skipped`]. A type without a quantizer that needs no
/// importance matrix is refused ([`WriteError::NoReferenceQuantizer`]).
pub fn plan_uniform(g: &Gguf<'_>, opts: UniformOptions) -> Result<Plan> {
    let ty = opts.ty;
    if !quant::can_quantize(ty) {
        return Err(WriteError::NoReferenceQuantizer { ty }.into());
    }
    let (descs, _) = tensors_of(Input::from(g))?;
    let tensors = descs
        .into_iter()
        .map(|d| {
            let (to, reason) = match decide(&d, ty, opts.all) {
                Ok(()) => (ty, Reason::Uniform),
                Err(why) => (d.ty, Reason::Skipped(why)),
            };
            let bytes_in = size_in(&d.name, d.ty, &d.shape)?;
            let bytes_out = if to == d.ty {
                bytes_in
            } else {
                size_in(&d.name, to, &d.shape)?
            };
            Ok(PlannedTensor {
                shard: d.shard,
                index: d.index,
                output_shard: 0,
                name: d.name.clone(),
                source_name: d.name,
                shape: d.shape,
                from: d.ty,
                to,
                reason,
                bytes_in,
                bytes_out,
                needs_imatrix: false,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Plan {
        kind: PlanKind::Uniform {
            ty,
            all: opts.all,
            endian: opts.endian.unwrap_or(g.endian()),
        },
        tensors,
        fallbacks: 0,
        has_imatrix: false,
        block_count: None,
        keep_split: false,
        output_shards: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(name: &str, ty: GgmlType, shape: &[u64]) -> TensorDesc {
        TensorDesc {
            shard: 0,
            index: 0,
            offset: 0,
            name: name.to_string(),
            ty,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn the_weights_are_those_llama_quantize_quantizes() {
        let q = GgmlType::Q8_0;
        let d = |n, s: &[u64]| decide(&desc(n, GgmlType::F32, s), q, false);
        assert_eq!(d("blk.0.attn_q.weight", &[64, 4]), Ok(()));
        // ggml_n_dims: trailing ones do not count
        assert_eq!(
            d("blk.0.attn_q.weight", &[64, 1]),
            Err(SkipReason::NotQuantized(NotQuantized::OneDimensional))
        );
        assert_eq!(
            d("blk.0.ffn_gate_inp.weight", &[64, 4]),
            Err(SkipReason::NotQuantized(NotQuantized::Excluded(
                "ffn_gate_inp.weight"
            )))
        );
        assert_eq!(
            d("blk.0.attn_q.bias", &[64, 4]),
            Err(SkipReason::NotQuantized(NotQuantized::NotAWeight))
        );
        assert_eq!(
            d("blk.0.attn_q.weight", &[48, 4]),
            Err(SkipReason::RowsDoNotFit(48))
        );
        // with all: every tensor whose rows fit
        let a = |n, ty, s: &[u64]| decide(&desc(n, ty, s), q, true);
        assert_eq!(a("blk.0.attn_norm.weight", GgmlType::F32, &[64]), Ok(()));
        assert_eq!(a("ids", GgmlType::I32, &[64]), Err(SkipReason::Integer));
        assert_eq!(a("x", q, &[64]), Err(SkipReason::AlreadyThatType));
        assert_eq!(
            a("y", GgmlType::F16, &[48]),
            Err(SkipReason::RowsDoNotFit(48))
        );
    }
}
