//! What the parser records about a header's arrays (nested arrays' ends, the lengths of large
//! string arrays) so that the value views walk them cheaply later.
#![forbid(unsafe_code)]

use crate::read::text::CheckedText;

/// What the parser records about a header's arrays so that walking them later is cheap.
///
/// **Nested array ends.** Without them, stepping over an element that is itself an array means
/// measuring everything inside it, and walking a deep nest measures each level once per level
/// above it: quadratic in the depth. Only arrays that are
/// not the last element of their parent (the last one ends where its parent ends) and whose own
/// elements are arrays (a string or number array is measured in one pass) are recorded: none in a
/// file without nesting. Positions take 4 bytes each while they fit.
///
/// **String lengths.** Walking a string array means reading each length to find the next one:
/// a chain of dependent loads, each waiting for the one before: most of the cost of a
/// vocabulary walk. For arrays of [`Self::LENS_MIN`] strings or more, the parser keeps each
/// length in a byte (255 for 255 or more), so [`StrIter`] finds the next string with an add
/// instead of a load: one byte per string, an eighth of the array at most.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueIndex {
    /// (start, end) of nested arrays starting below 4 GiB, in order of their start.
    low: Vec<(u32, u32)>,
    /// The same past 4 GiB (only in headers that large).
    high: Vec<(u64, u64)>,
    /// (where the elements start, index of the first length in `lens`) of each string array
    /// whose lengths are kept, in order of their start.
    string_arrays: Vec<(u64, usize)>,
    /// The kept string lengths, a byte each (255 for 255 or more).
    pub(crate) lens: Vec<u8>,
    /// Present when the parser checked every string of the header and found them all valid.
    pub(crate) text: Option<CheckedText>,
}

impl ValueIndex {
    /// Arrays with fewer strings do not keep their lengths.
    pub(crate) const LENS_MIN: u64 = 64;

    /// Starts keeping the lengths of a string array of `count` strings whose elements start at
    /// `start`, when it is large enough; the caller then pushes exactly `count` lengths.
    pub(crate) fn begin_strings(&mut self, start: u64, count: u64) -> bool {
        let Ok(n) = usize::try_from(count) else {
            return false;
        };
        if count < Self::LENS_MIN {
            return false;
        }
        self.string_arrays.push((start, self.lens.len()));
        // the count was checked against the bytes (8 at least a string): bounded by the input
        self.lens.reserve(n);
        true
    }

    /// The kept lengths of the `count` strings whose elements start at `start`.
    #[inline]
    pub(crate) fn string_lens(&self, start: u64, count: u64) -> Option<&[u8]> {
        let i = self
            .string_arrays
            .binary_search_by_key(&start, |e| e.0)
            .ok()?;
        let first = self.string_arrays[i].1;
        self.lens
            .get(first..first.checked_add(usize::try_from(count).ok()?)?)
    }

    /// Records an array starting at `start` (its type field); returns its slot for [`Self::close`],
    /// or `None` past what the table indexes.
    pub(crate) fn open(&mut self, start: u64) -> Option<u32> {
        let slot = u32::try_from(self.low.len() + self.high.len()).ok()?;
        match u32::try_from(start) {
            Ok(s) if self.high.is_empty() => self.low.push((s, 0)),
            _ => self.high.push((start, 0)),
        }
        Some(slot)
    }

    /// Sets the end of the array in `slot`.
    pub(crate) fn close(&mut self, slot: u32, end: u64) {
        let i = slot as usize;
        if i < self.low.len() {
            // an end past 4 GiB does not fit: u32::MAX marks it unknown (measured when walked)
            self.low[i].1 = u32::try_from(end).unwrap_or(u32::MAX);
        } else if let Some(e) = self.high.get_mut(i - self.low.len()) {
            e.1 = end;
        }
    }

    /// Where the array starting at `start` ends, when it was recorded.
    pub(crate) fn end_of(&self, start: u64) -> Option<u64> {
        match u32::try_from(start) {
            Ok(s) => {
                let i = self.low.binary_search_by_key(&s, |e| e.0).ok()?;
                let end = self.low[i].1;
                // 0: never closed; u32::MAX: did not fit
                (end != u32::MAX && end != 0).then_some(u64::from(end))
            }
            Err(_) => {
                let i = self.high.binary_search_by_key(&start, |e| e.0).ok()?;
                let end = self.high[i].1;
                (end != 0).then_some(end)
            }
        }
    }

    /// Bytes the table holds on the heap.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.low.capacity() * 8 + self.high.capacity() * 16 + self.lens.capacity()
    }
}

/// A header's [`ValueIndex`] with the address of its first byte, so that a view can tell where
/// in the header an element starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexRef<'a> {
    pub(crate) index: &'a ValueIndex,
    /// The address of byte 0 of the header (compared, never dereferenced).
    pub(crate) origin: usize,
}

impl<'a> IndexRef<'a> {
    /// Bytes used by the elements of the nested array whose encoding starts at `at` (its type
    /// field), when the parser recorded its end and that end lies within `avail` bytes.
    pub(crate) fn body_len(&self, at: &[u8], avail: usize) -> Option<usize> {
        let start = self.position(at)?;
        let end = self.index.end_of(start)?;
        let used = usize::try_from(end.checked_sub(start)?.checked_sub(12)?).ok()?;
        (used <= avail).then_some(used)
    }

    /// The kept lengths of the string array whose `count` elements are `elements`.
    #[inline]
    pub(crate) fn string_lens(&self, elements: &[u8], count: u64) -> Option<&'a [u8]> {
        self.index.string_lens(self.position(elements)?, count)
    }

    /// Where `bytes` start in the header.
    #[inline]
    fn position(&self, bytes: &[u8]) -> Option<u64> {
        Some((bytes.as_ptr() as usize).checked_sub(self.origin)? as u64)
    }
}
