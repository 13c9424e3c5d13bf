//! The parser's cursor: a position in a [`Source`] and reads that are checked against the bytes
//! that exist before they happen; a read that would run past them stops with `truncated`, naming
//! the field.
#![forbid(unsafe_code)]

use super::{PResult, Stop};
use crate::endian::Endian;
use crate::read::source::Source;
use crate::rules;

/// Names the field being read, for the message of a cut; given the bytes so far, so that a name
/// read earlier (a tensor's) can be shown without being formatted on the way.
pub(super) type What<'w> = &'w dyn Fn(&[u8]) -> String;

pub(super) struct Cursor<'s, S: Source> {
    pub src: &'s mut S,
    pub pos: u64,
    pub endian: Endian,
}

impl<'s, S: Source> Cursor<'s, S> {
    pub fn new(src: &'s mut S) -> Self {
        Cursor {
            src,
            pos: 0,
            endian: Endian::Little,
        }
    }

    /// Every byte available so far.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        self.src.bytes()
    }

    /// Bytes remaining after `from`, when the total is known.
    fn remaining_after(&self, from: u64) -> Option<u64> {
        self.src.total_len().map(|t| t.saturating_sub(from))
    }

    /// Bytes remaining after the cursor: of the file when its length is known, else of what
    /// arrived.
    fn left(&self) -> u64 {
        self.remaining_after(self.pos)
            .unwrap_or((self.bytes().len() as u64).saturating_sub(self.pos))
    }

    /// The file's length when known (slices, remote objects), else the bytes that arrived.
    pub fn file_len(&self) -> u64 {
        self.src.total_len().unwrap_or(self.bytes().len() as u64)
    }

    /// Ensures `n` bytes at the cursor, or stops with `truncated` at `field` (naming `what`).
    #[inline(always)]
    pub fn need(&mut self, n: u64, field: u64, what: What<'_>) -> PResult<()> {
        let end = self.pos.checked_add(n);
        match end {
            Some(end) if self.src.available(end)? => Ok(()),
            _ => {
                let have = self.file_len();
                Err(Stop::Rule(rules::truncated_field(
                    field,
                    have,
                    &what(self.bytes()),
                    n,
                    self.pos,
                )))
            }
        }
    }

    /// Checks that `count` items of at least `min` bytes each fit after the cursor.
    pub fn need_count(&mut self, count: u64, min: u64, field: u64, what: What<'_>) -> PResult<()> {
        let bytes = count.checked_mul(min);
        let end = bytes.and_then(|b| self.pos.checked_add(b));
        let fits = match end {
            Some(end) => self.src.available(end)?,
            None => false,
        };
        if fits {
            return Ok(());
        }
        let left = self.left();
        Err(Stop::Rule(rules::truncated_count(
            field,
            &what(self.bytes()),
            count,
            min,
            left,
        )))
    }

    /// Ensures the `len` bytes of a string whose length field is at `at` follow the cursor.
    #[inline]
    pub fn need_string_bytes(&mut self, at: u64, len: u64, what: What<'_>) -> PResult<()> {
        let end = self.pos.checked_add(len);
        let ok = match end {
            Some(end) => self.src.available(end)?,
            None => false,
        };
        if ok {
            return Ok(());
        }
        let left = self.left();
        Err(Stop::Rule(rules::truncated_string(
            at,
            &what(self.bytes()),
            len,
            left,
        )))
    }

    /// The `u32` at `pos`, which [`Cursor::need`] has proven to be there.
    #[inline(always)]
    pub fn u32_at(&self, pos: u64) -> u32 {
        let p = pos as usize;
        let raw = self.bytes().get(p..).and_then(|b| b.first_chunk::<4>());
        self.endian.u32(raw.copied().unwrap_or([0; 4]))
    }

    /// The `u64` at `pos`, which [`Cursor::need`] has proven to be there.
    #[inline(always)]
    pub fn u64_at(&self, pos: u64) -> u64 {
        let p = pos as usize;
        let raw = self.bytes().get(p..).and_then(|b| b.first_chunk::<8>());
        self.endian.u64(raw.copied().unwrap_or([0; 8]))
    }

    #[inline(always)]
    pub fn read_u32(&mut self, what: What<'_>) -> PResult<u32> {
        let at = self.pos;
        self.need(4, at, what)?;
        let v = self.u32_at(at);
        self.pos += 4;
        Ok(v)
    }

    #[inline(always)]
    pub fn read_u64(&mut self, what: What<'_>) -> PResult<u64> {
        let at = self.pos;
        self.need(8, at, what)?;
        let v = self.u64_at(at);
        self.pos += 8;
        Ok(v)
    }

    /// Bytes `[start, start + len)`, which the cursor has proven to be there.
    #[inline]
    pub fn slice(&self, start: u64, len: u64) -> &[u8] {
        &self.bytes()[start as usize..(start + len) as usize]
    }
}
