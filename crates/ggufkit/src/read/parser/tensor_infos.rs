//! Tensor infos: name, dimensions, type and offset, each field checked by its rule; runs of
//! plain infos go through the fast path ([`super::fast_infos`]), anything else field by field
//! here, to be reported exactly. Then the padding before the tensor data.
#![forbid(unsafe_code)]

use super::fast_infos::{fast_infos, InfoRun, NameBatch, NAME_BATCH};
use super::{PResult, Parser, Paths, Stop};
use crate::endian::Endian;
use crate::forks;
use crate::read::index::{self, TensorList};
use crate::read::name_table::NameTable;
use crate::read::source::Source;
use crate::rules::{self, show};
use crate::types::GgmlType;

/// Where the info before the one being read starts (the list holds it already).
fn before_start(tensors: &TensorList) -> u64 {
    tensors.last_start().unwrap_or(0)
}

/// Where a tensor's data must start: at `offset`, or after the tensor of an unsized type before
/// it (`pending`), anywhere from that tensor's offset on.
struct Expected {
    offset: u64,
    pending: Option<Unsized>,
    align: u64,
}

/// Where the next tensor's data must start: at a known offset, or after this tensor, whose type
/// has no size here.
enum Next {
    At(u64),
    AfterUnsized(Unsized),
}

/// What the tensor infos leave for the rest of the header.
pub(super) struct Infos {
    /// Tensor indices by name, each with the high half of its name's hash.
    pub name_index: NameTable,
    /// Bytes of the data section: the last tensor's padded end (its offset, when its type has no
    /// size here: see `unsized_last`).
    pub data_len: u64,
    /// The last tensor, when its type has no size here: its data runs to the end of the file.
    pub unsized_last: Option<Unsized>,
}

/// A tensor whose type this build cannot size (only a permissive reading goes past one): its
/// data runs up to where the next tensor's starts.
#[derive(Clone, Copy)]
pub(super) struct Unsized {
    /// Where its info starts.
    pub start: u64,
    /// Its data offset, relative to the data section.
    pub offset: u64,
}

impl<S: Source> Parser<'_, S> {
    /// The `n_tensors` tensor infos, entered in `tensors` as they are read; `alignment` is the
    /// file's, which every tensor's padded end is rounded to.
    pub(super) fn tensor_infos(
        &mut self,
        n_tensors: u64,
        alignment: u32,
        tensors: &mut TensorList,
    ) -> PResult<Infos> {
        tensors.reserve(n_tensors as usize);
        let mut name_index = NameTable::with_capacity(n_tensors as usize);
        // names of fast-path infos wait here to be entered a batch at a time (see `enter_names`)
        let mut batch = NameBatch::new();
        let mut expected: u64 = 0;
        let mut pending: Option<Unsized> = None;
        let align = u64::from(alignment);
        let mut i = 0;
        while i < n_tensors {
            // after a tensor of an unsized type, the next info's offset says where its data ends:
            // that info is read field by field
            if self.paths == Paths::Fast && pending.is_none() {
                // the common case, a run of infos decoded behind two bounds checks each
                let (b, left, seed) = (self.cur.bytes(), n_tensors - i, name_index.seed());
                let from = InfoRun {
                    pos: self.cur.pos,
                    expected,
                };
                let run = match self.cur.endian {
                    Endian::Little => fast_infos::<false>(b, from, left, align, seed, &mut batch),
                    Endian::Big => fast_infos::<true>(b, from, left, align, seed, &mut batch),
                };
                self.cur.pos = run.pos;
                expected = run.expected;
                i += batch.len as u64;
                batch.first = tensors.len() as u32;
                tensors.extend(&batch.starts[..batch.len]);
                // the names before the next info go first: a repeat among them is reported
                // before anything wrong with it
                self.enter_names(&mut name_index, &batch, tensors)?;
                if i == n_tensors || batch.len == NAME_BATCH {
                    continue;
                }
            }
            let after = Expected {
                offset: expected,
                pending: pending.take(),
                align,
            };
            match self.tensor_info(i, after, &mut name_index, tensors)? {
                Next::At(next) => expected = next,
                Next::AfterUnsized(u) => {
                    expected = u.offset;
                    pending = Some(u);
                }
            }
            i += 1;
        }
        Ok(Infos {
            name_index,
            data_len: expected,
            unsized_last: pending,
        })
    }

    /// Tensor info `i`, field by field, whose data must start where `expected` says; returns
    /// where the next tensor's data must start.
    fn tensor_info(
        &mut self,
        i: u64,
        expected: Expected,
        name_index: &mut NameTable,
        tensors: &mut TensorList,
    ) -> PResult<Next> {
        let align = expected.align;
        let start = self.cur.pos;
        // name: judged from its length field first
        let name_len = self
            .cur
            .read_u64(&|_: &[u8]| format!("the name length of tensor {i}"))?;
        if !rules::tensor_name_len(name_len) {
            self.soft(rules::tensor_name_violation(start, i, name_len))?;
        }
        let name_of = |_: &[u8]| format!("the name of tensor {i}");
        self.cur.need_string_bytes(start, name_len, &name_of)?;
        let name_pos = self.cur.pos;
        self.cur.pos += name_len;
        self.check_name(name_pos, name_len, &name_of)?;
        self.enter_tensor_name(name_index, tensors, i, start, name_len)?;
        let (np, nl) = (name_pos as usize, name_len as usize);
        let tname_in = move |s: &[u8]| show(&s[np..np + nl]);
        let tname = |c: &Self| tname_in(c.cur.bytes());

        // dimensions
        let ndims_pos = self.cur.pos;
        let n_dims = self
            .cur
            .read_u32(&|s: &[u8]| format!("the dimension count of tensor '{}'", tname_in(s)))?;
        if !rules::tensor_dims(n_dims) {
            let d = rules::tensor_dims_violation(ndims_pos, &tname(self), n_dims);
            return Err(Stop::Rule(d));
        }
        let dims_pos = self.cur.pos;
        // when every field through the offset is in memory (all but a cut file), they are
        // read without a check each; otherwise field by field, to name the one cut short
        let fields_end = self.cur.pos + 8 * u64::from(n_dims) + 12;
        let in_memory =
            fields_end <= self.cur.bytes().len() as u64 || self.cur.src.available(fields_end)?;
        let mut dims = [1u64; 4];
        for (d, dim) in dims.iter_mut().enumerate().take(n_dims as usize) {
            let at = self.cur.pos;
            let v = if in_memory {
                self.cur.pos += 8;
                self.cur.u64_at(at)
            } else {
                self.cur
                    .read_u64(&|s: &[u8]| format!("dimension {d} of tensor '{}'", tname_in(s)))?
            };
            if !rules::tensor_dim(v) {
                return Err(Stop::Rule(rules::tensor_dim_violation(
                    at,
                    &tname(self),
                    d,
                    v,
                )));
            }
            *dim = v;
        }
        let Some(n_elements) = rules::element_count(&dims) else {
            let shape = &dims[..n_dims as usize];
            let d = rules::element_count_violation(dims_pos, &tname(self), shape);
            return Err(Stop::Rule(d));
        };

        // type
        let type_pos = self.cur.pos;
        let raw_type = if in_memory {
            self.cur.pos += 4;
            self.cur.u32_at(type_pos)
        } else {
            self.cur
                .read_u32(&|s: &[u8]| format!("the type of tensor '{}'", tname_in(s)))?
        };
        // a type this build cannot size is recorded, and its size taken from the next offset
        let size = match rules::tensor_type(raw_type) {
            Some(ty) => {
                let ne0 = if n_dims > 0 { dims[0] } else { 1 };
                if !rules::tensor_block(ne0, ty) {
                    if !forks::REUSED_IDS.contains(&raw_type) {
                        let d = rules::tensor_block_violation(type_pos, &tname(self), ty, ne0);
                        return Err(Stop::Rule(d));
                    }
                    // a fork's type under an id ggml reads: sized from the next offset
                    let d = rules::reused_type_block_violation(type_pos, &tname(self), ty, ne0);
                    self.soft(d)?;
                    tensors.set_extent(start, 0);
                    None
                } else {
                    let Some(size) = rules::byte_size(ty, n_elements) else {
                        let d = rules::byte_size_violation(dims_pos, &tname(self), ty, n_elements);
                        return Err(Stop::Rule(d));
                    };
                    Some(size)
                }
            }
            None => {
                self.soft(rules::tensor_type_violation(
                    type_pos,
                    &tname(self),
                    raw_type,
                ))?;
                None
            }
        };

        // offset
        let offset_pos = self.cur.pos;
        let offset = if in_memory {
            self.cur.pos += 8;
            self.cur.u64_at(offset_pos)
        } else {
            self.cur
                .read_u64(&|s: &[u8]| format!("the data offset of tensor '{}'", tname_in(s)))?
        };
        match expected.pending {
            // the tensor before has no size here: its data runs up to this one's
            Some(u) => {
                if !rules::tensor_offset_after_unsized(offset, u.offset, align) {
                    let d = rules::tensor_offset_after_unsized_violation(
                        offset_pos,
                        &tname(self),
                        offset,
                        u.offset,
                        align,
                    );
                    return Err(Stop::Rule(d));
                }
                tensors.set_extent(u.start, offset - u.offset);
            }
            None if !rules::tensor_offset(offset, expected.offset) => {
                let name = tname(self);
                match self.reused_before(tensors, offset, align) {
                    // the tensor before is a fork's type under a reused id: its data runs here
                    Some((before, ty, from)) => {
                        let d = rules::reused_type_offset_violation(
                            offset_pos,
                            &name,
                            offset,
                            expected.offset,
                            (&before, ty),
                        );
                        self.soft(d)?;
                        tensors.set_extent(before_start(tensors), offset - from);
                    }
                    None => {
                        let d = rules::tensor_offset_violation(
                            offset_pos,
                            &name,
                            offset,
                            expected.offset,
                        );
                        return Err(Stop::Rule(d));
                    }
                }
            }
            None => {}
        }
        let Some(size) = size else {
            tensors.push(start);
            return Ok(Next::AfterUnsized(Unsized { start, offset }));
        };
        let Some(next) = rules::padded_end(offset, size, align) else {
            let d = rules::padded_end_violation(offset_pos, &tname(self), offset, size);
            return Err(Stop::Rule(d));
        };
        tensors.push(start);
        Ok(Next::At(next))
    }

    /// When the last tensor read has an id that forks reuse (41 `q1_0`, 42 `q2_0`) and is sized by
    /// it, and a permissive reading could take it as the fork's type whose data runs to `offset`:
    /// its name, its type as ggml reads the id and its offset. Both modes ask, so that a strict
    /// reading stops with the words a permissive one records.
    fn reused_before(
        &self,
        tensors: &TensorList,
        offset: u64,
        align: u64,
    ) -> Option<(String, GgmlType, u64)> {
        let start = tensors.last_start()?;
        let (src, e) = (self.cur.bytes(), self.cur.endian);
        let f = index::info_fields(src, e, start);
        let ty = rules::tensor_type(f.type_id)?;
        let reused = forks::REUSED_IDS.contains(&f.type_id) && tensors.extent(start).is_none();
        (reused && rules::tensor_offset_after_unsized(offset, f.offset, align))
            .then(|| (show(f.name), ty, f.offset))
    }

    /// The extent of the last tensor when its type has no size here: to the end of the file
    /// (nothing when the length is unknown, as for a stream). Returns the data section's length.
    pub(super) fn last_extent(
        &mut self,
        infos: &Infos,
        data_offset: u64,
        tensors: &mut TensorList,
    ) -> PResult<u64> {
        let Some(u) = infos
            .unsized_last
            .or(self.reused_last(infos, data_offset, tensors)?)
        else {
            return Ok(infos.data_len);
        };
        let start = data_offset.saturating_add(u.offset);
        let extent = self
            .cur
            .src
            .total_len()
            .map_or(0, |total| total.saturating_sub(start));
        tensors.set_extent(u.start, extent);
        Ok(u.offset.saturating_add(extent))
    }

    /// The last tensor, when it has an id that forks reuse, is sized by it, and its data under
    /// that size would run past the end of the file: a permissive reading takes it as the fork's
    /// type (the `truncated` error it would be otherwise is recorded as such); a strict one stops
    /// with that error.
    fn reused_last(
        &mut self,
        infos: &Infos,
        data_offset: u64,
        tensors: &TensorList,
    ) -> PResult<Option<Unsized>> {
        let Some(total) = self.cur.src.total_len() else {
            return Ok(None);
        };
        if data_offset.saturating_add(infos.data_len) <= total {
            return Ok(None);
        }
        let Some(start) = tensors.last_start() else {
            return Ok(None);
        };
        let f = index::info_fields(self.cur.bytes(), self.cur.endian, start);
        let Some(ty) = rules::tensor_type(f.type_id) else {
            return Ok(None);
        };
        let data_start = data_offset.saturating_add(f.offset);
        if !forks::REUSED_IDS.contains(&f.type_id) || tensors.extent(start).is_some() {
            return Ok(None);
        }
        if data_start > total {
            return Ok(None);
        }
        let (offset, d) = (
            f.offset,
            rules::reused_type_end_violation(data_start, &show(f.name), ty, total),
        );
        self.soft(d)?;
        Ok(Some(Unsized { start, offset }))
    }

    /// The padding before the tensor data (only when there are tensors); returns where the data
    /// starts.
    pub(super) fn data_padding(&mut self, n_tensors: u64, alignment: u32) -> PResult<u64> {
        if n_tensors != 0 {
            let align = u64::from(alignment);
            let pad = crate::wire::padding(self.cur.pos, align);
            let at = self.cur.pos;
            self.cur.need(pad, at, &|_: &[u8]| {
                "the padding before the tensor data".into()
            })?;
            self.cur.pos += pad;
        }
        Ok(self.cur.pos)
    }
}
