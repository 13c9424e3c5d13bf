//! An edited file as pieces: the new header, then ranges of the original file for the tensor data
//! (with the zero padding the layout puts between them). A program that can concatenate without
//! copying (a browser's `Blob` of slices) gives the edited file of a 20 GB model in the time its
//! header takes, and its bytes are exactly those `edit` writes to a new file.
#![forbid(unsafe_code)]

use std::ops::Range;

use super::edit::{apply, MetaEdit};
use super::writer::GgufBuilder;
use crate::error::Result;
use crate::read::Gguf;

/// One piece of an edited file, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Bytes that are new: the header (padded to the data), padding between tensors.
    New(Vec<u8>),
    /// Bytes `start..end` of the original file (tensor data, contiguous tensors merged).
    Original(Range<u64>),
}

/// The file `g` with `edits` applied, as pieces whose concatenation is the file `gguf meta set
/// ... -o OUT` writes. Only the header is read: `g` may be a header without its data (remote, or
/// read in rounds).
pub fn edited_pieces(g: &Gguf<'_>, edits: &[MetaEdit]) -> Result<Vec<Piece>> {
    let mut b = GgufBuilder::from_gguf(g)?;
    apply(&mut b, edits)?;
    let (header, layout) = b.header()?;
    let mut pieces = vec![Piece::New(header)];
    // the position in the new file's data section
    let mut at = 0u64;
    for ((t, &offset), &size) in g.tensors().zip(&layout.offsets).zip(&layout.sizes) {
        zeros(&mut pieces, offset.saturating_sub(at));
        let start = t.absolute_offset();
        let end = start.saturating_add(size);
        match pieces.last_mut() {
            Some(Piece::Original(r)) if r.end == start => r.end = end,
            _ => pieces.push(Piece::Original(start..end)),
        }
        at = offset.saturating_add(size);
    }
    let written = layout.data_offset.saturating_add(at);
    zeros(&mut pieces, layout.total_len.saturating_sub(written));
    Ok(pieces)
}

/// Appends `n` zero bytes (to the last new piece when there is one).
fn zeros(pieces: &mut Vec<Piece>, n: u64) {
    if n == 0 {
        return;
    }
    let n = n as usize;
    match pieces.last_mut() {
        Some(Piece::New(v)) => v.resize(v.len() + n, 0),
        _ => pieces.push(Piece::New(vec![0; n])),
    }
}
