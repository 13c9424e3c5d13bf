//! The fast path of tensor infos: a run of infos that break no rule, each decoded behind two
//! bounds checks (its name, and its fixed fields as one array) with the same rule checks as the
//! field-by-field path; the first info that is not that common case ends the run and is read
//! field by field, to be reported exactly.
#![forbid(unsafe_code)]

use crate::read::name_table::NameSeed;
use crate::rules;
use crate::wire::{rd32, rd64, INFO_TAIL};

/// Tensor names entered in the index at a time (see `enter_names`).
pub(super) const NAME_BATCH: usize = 64;

/// A tensor info decoded by [`fast_tensor_info`].
struct FastInfo {
    /// The hash of the name (from the name table's seed).
    hash: u64,
    /// Where the info ends.
    end: usize,
    /// Where the next tensor's data must start (this one's padded end).
    next_offset: u64,
}

/// The tensor info at `start` when it breaks no rule and `b` holds it and [`INFO_TAIL`] bytes
/// after its name: `tensor.name` (and a plain ASCII name without NUL), `tensor.dims`,
/// `tensor.dim`, `tensor.size`, `tensor.type`, `tensor.block` and `tensor.offset` against
/// `expected`. `None` otherwise: the parser then reads it field by field to report what is
/// wrong (or to read more of a stream).
#[inline(always)]
fn fast_tensor_info<const BIG: bool>(
    b: &[u8],
    start: usize,
    expected: u64,
    align: u64,
    seed: &NameSeed,
) -> Option<FastInfo> {
    let name_len = rd64::<BIG>(b.get(start..)?.first_chunk::<8>()?);
    if !rules::tensor_name_len(name_len) {
        return None;
    }
    let name_end = start + 8 + name_len as usize;
    let (hash, plain) = seed.scan(b.get(start + 8..name_end)?);
    if !plain {
        return None;
    }
    let tail: &[u8; INFO_TAIL] = b.get(name_end..)?.first_chunk()?;
    let n_dims = rd32::<BIG>(tail);
    if !rules::tensor_dims(n_dims) {
        return None;
    }
    let n_dims = n_dims as usize;
    let mut dims = [1u64; 4];
    for (d, dim) in dims.iter_mut().enumerate() {
        if d < n_dims {
            let v = rd64::<BIG>(&tail[4 + 8 * d..]);
            if !rules::tensor_dim(v) {
                return None;
            }
            *dim = v;
        }
    }
    let n_elements = rules::element_count(&dims)?;
    let rest = &tail[4 + 8 * n_dims..];
    let ty = rules::tensor_type(rd32::<BIG>(rest))?;
    if !rules::tensor_block(dims[0], ty) {
        return None;
    }
    let size = rules::byte_size(ty, n_elements)?;
    let offset = rd64::<BIG>(&rest[4..]);
    if !rules::tensor_offset(offset, expected) {
        return None;
    }
    Some(FastInfo {
        hash,
        end: name_end + 4 + 8 * n_dims + 12,
        next_offset: rules::padded_end(offset, size, align)?,
    })
}

/// Fast-path tensor infos waiting to enter the name index: where each starts and its name's
/// hash, in file order, the first being tensor `first`.
pub(super) struct NameBatch {
    pub starts: [u64; NAME_BATCH],
    pub hashes: [u64; NAME_BATCH],
    pub len: usize,
    pub first: u32,
}

impl NameBatch {
    pub fn new() -> NameBatch {
        NameBatch {
            starts: [0; NAME_BATCH],
            hashes: [0; NAME_BATCH],
            len: 0,
            first: 0,
        }
    }
}

/// Where a run of fast-path tensor infos ([`fast_infos`]) starts or stopped.
pub(super) struct InfoRun {
    /// Where the next info starts.
    pub pos: u64,
    /// The offset the next info's data must have.
    pub expected: u64,
}

/// Takes tensor infos from `from` into `batch` (emptied first) while each is the common case of
/// [`fast_tensor_info`], at most `left` of them and no more than a batch holds. Its own loop
/// over local arrays, so that the position and offset stay in registers.
#[inline(always)]
pub(super) fn fast_infos<const BIG: bool>(
    b: &[u8],
    from: InfoRun,
    left: u64,
    align: u64,
    seed: &NameSeed,
    batch: &mut NameBatch,
) -> InfoRun {
    let InfoRun { pos, mut expected } = from;
    let want = left.min(NAME_BATCH as u64) as usize;
    // a position past the address space is past the bytes: no fast info there
    let mut p = usize::try_from(pos).unwrap_or(usize::MAX);
    let mut taken = 0;
    while taken < want {
        let Some(f) = fast_tensor_info::<BIG>(b, p, expected, align, seed) else {
            break;
        };
        batch.starts[taken] = p as u64;
        batch.hashes[taken] = f.hash;
        p = f.end;
        expected = f.next_offset;
        taken += 1;
    }
    batch.len = taken;
    InfoRun {
        pos: if taken == 0 { pos } else { p as u64 },
        expected,
    }
}
