//! The one place the executor turns rows of floats into a tensor type: with importance weights
//! (an importance matrix's values for these rows' columns) or without. The codecs are
//! [`quant::quantize_rows`] (ggml's `ggml_quantize_chunk`); [`can_encode`] and [`encode_rows`]
//! are all the executor knows of them.
#![forbid(unsafe_code)]

use crate::error::Result;
use crate::quant;
use crate::types::GgmlType;

/// Whether rows can be encoded as `ty`, with importance weights (`weighted`) or without.
pub fn can_encode(ty: GgmlType, weighted: bool) -> bool {
    quant::can_quantize_rows(ty) && (weighted || !quant::requires_importance(ty))
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
    quant::quantize_rows(ty, src, n_per_row, importance, out)
}
