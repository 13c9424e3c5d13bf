//! ggml compares keys and tensor names only up to a first NUL byte: names equal up to it are
//! duplicates for ggml (a warning: the spec compares whole names). Only looked for when a name
//! held a NUL byte.
#![forbid(unsafe_code)]

use super::{Findings, Parser, MAX_DIAGNOSTICS};
use crate::read::index::{key_bytes, tensor_name, KvList, TensorList};
use crate::read::source::Source;
use crate::rules::{self, ggml_name, NameKind};

impl<S: Source> Parser<'_, S> {
    /// Warns about the keys and the tensor names ggml would take for repeats.
    pub(super) fn ggml_nul_duplicates(&mut self, kvs: &KvList, tensors: &TensorList) {
        let src = self.cur.bytes();
        let e = self.cur.endian;
        let found = &mut self.found;
        nul_duplicates(
            found,
            kvs.len(),
            |i| kvs.at(i).start,
            &rules::KEYS,
            |i| key_bytes(src, kvs.at(i), e),
        );
        nul_duplicates(
            found,
            tensors.len(),
            |i| tensors.at(i),
            &rules::TENSOR_NAMES,
            |i| tensor_name(src, tensors.at(i), e),
        );
    }
}

/// Warns, in file order, about each name that equals an earlier one up to a NUL byte but not in
/// full (naming the nearest such earlier one).
///
/// The names are sorted by their NUL-cut form (4 bytes of index each, no copies), so equal cut
/// names sit side by side; only the first warnings are formatted, picked with a bounded heap (a
/// hostile header can hold hundreds of thousands of such names).
fn nul_duplicates<'s>(
    found: &mut Findings,
    n: usize,
    offset: impl Fn(u32) -> u64,
    kind: &NameKind,
    name: impl Fn(u32) -> &'s [u8],
) {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| ggml_name(name(a)).cmp(ggml_name(name(b))).then(a.cmp(&b)));
    let room = MAX_DIAGNOSTICS.saturating_sub(found.warnings.len());
    // the `room` pairs (i, j) of smallest i, as a max-heap on i
    let mut first: std::collections::BinaryHeap<(u32, u32)> = Default::default();
    for w in order.windows(2) {
        let (j, i) = (w[0], w[1]);
        let (nj, ni) = (name(j), name(i));
        if ggml_name(nj) != ggml_name(ni) || nj == ni {
            continue;
        }
        if first.len() < room {
            first.push((i, j));
        } else {
            found.dropped += 1;
            if first.peek().is_some_and(|&(top, _)| i < top) {
                first.pop();
                first.push((i, j));
            }
        }
    }
    drop(order);
    for (i, j) in first.into_sorted_vec() {
        let d = rules::nul_duplicate_warning(kind, offset(i), name(i), j);
        found.warnings.push(d);
    }
}
