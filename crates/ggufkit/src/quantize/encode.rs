//! The one place the executor turns rows of floats into a tensor type: with importance weights
//! (an importance matrix's values for these rows' columns) or without. This is the seam where
//! the importance-weighted codecs plug in: [`can_encode`] and [`encode_rows`] are all the
//! executor knows of them.
#![forbid(unsafe_code)]

use crate::error::{QuantError, Result};
use crate::quant;
use crate::types::GgmlType;

/// Whether rows can be encoded as `ty`, with importance weights (`weighted`) or without.
pub fn can_encode(ty: GgmlType, weighted: bool) -> bool {
    if weighted {
        // Importance-weighted codecs (ggml_quantize_chunk with an imatrix) are not in the
        // library yet: every weighted request is refused until they are.
        false
    } else {
        quant::can_quantize(ty)
    }
}

/// Encodes `src`, whole rows of `n_per_row` floats, as `ty` into `out` (exactly their size),
/// as ggml's `ggml_quantize_chunk` does: without `importance`, ggml's reference quantizers;
/// with it (`n_per_row` values, one per column), the importance-weighted search.
pub fn encode_rows(
    ty: GgmlType,
    src: &[f32],
    n_per_row: usize,
    importance: Option<&[f32]>,
    out: &mut [u8],
) -> Result<()> {
    debug_assert!(n_per_row == 0 || src.len() % n_per_row == 0);
    match importance {
        None => quant::quantize_into(ty, src, out),
        Some(_) => Err(QuantError::NoQuantizer { ty }.into()),
    }
}
