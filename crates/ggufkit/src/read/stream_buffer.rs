//! The buffer a chunked stream reads its header into: heap memory while the header is small, then
//! an anonymous map advised for transparent huge pages.
//!
//! A memory-mapped file borrows the page cache; a stream must copy into fresh memory, and fresh
//! memory costs a page fault per 4 KiB page the first time it is written (for a 16 MB vocabulary,
//! four thousand faults, which cost more than the parse). Huge pages make that a handful, and
//! a map grows by copying what arrived into a map twice as large, so each byte moves about once.
//! Only pages that received bytes are ever touched, so memory still follows the bytes that arrive.
#![forbid(unsafe_code)]

use memmap2::MmapMut;

/// Room up to this size stays on the heap: most headers fit, with one allocation and no map.
const HEAP_LIMIT: usize = 256 << 10;

/// The granularity of a map's capacity: the transparent huge page size of x86-64 and aarch64.
const HUGE_PAGE: usize = 2 << 20;

enum Storage {
    /// Zero-filled room: `bytes[..filled]` arrived.
    Heap(Vec<u8>),
    /// The kernel's zeroed pages: `map[..filled]` arrived.
    Mapped(MmapMut),
}

/// Bytes that arrived from a stream, followed by room for the next reads.
pub(crate) struct StreamBuffer {
    storage: Storage,
    filled: usize,
}

impl StreamBuffer {
    pub fn new() -> Self {
        StreamBuffer {
            storage: Storage::Heap(Vec::new()),
            filled: 0,
        }
    }

    /// The bytes that arrived.
    pub fn filled(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(v) => &v[..self.filled],
            Storage::Mapped(m) => &m[..self.filled],
        }
    }

    pub fn len(&self) -> usize {
        self.filled
    }

    fn capacity(&self) -> usize {
        match &self.storage {
            Storage::Heap(v) => v.len(),
            Storage::Mapped(m) => m.len(),
        }
    }

    /// The room after the bytes that arrived, made at least `room` bytes long first.
    pub fn spare(&mut self, room: usize) -> &mut [u8] {
        let want = self.filled.saturating_add(room);
        if self.capacity() < want {
            self.grow(want);
        }
        match &mut self.storage {
            Storage::Heap(v) => &mut v[self.filled..],
            Storage::Mapped(m) => &mut m[self.filled..],
        }
    }

    /// Records that the first `n` bytes of the last [`StreamBuffer::spare`] slice arrived.
    pub fn advance(&mut self, n: usize) {
        self.filled = (self.filled + n).min(self.capacity());
    }

    /// Forgets every byte from `len` on (the read-ahead past a header). The room stays: at most
    /// half the bytes on the heap, and untouched pages in a map.
    pub fn truncate(&mut self, len: usize) {
        self.filled = self.filled.min(len);
    }

    /// Makes room for `want` bytes in all and more, so that reading a field at a time still
    /// moves each byte a bounded number of times: half again the bytes that arrived on the heap
    /// (where every byte of room is allocated), twice them in a map (where room not yet written
    /// costs nothing).
    fn grow(&mut self, want: usize) {
        if let Storage::Heap(v) = &mut self.storage {
            let want = want.max(self.filled.saturating_add(self.filled / 2));
            if want <= HEAP_LIMIT {
                v.reserve_exact(want - v.len());
                v.resize(want, 0);
                return;
            }
        }
        let want = want.max(self.filled.saturating_mul(2));
        let capacity = want.div_ceil(HUGE_PAGE).saturating_mul(HUGE_PAGE);
        match MmapMut::map_anon(capacity) {
            Ok(mut map) => {
                // only a hint: without huge pages the map still works, fault by fault
                // (`madvise` is unix's: elsewhere the map goes without)
                #[cfg(unix)]
                let _ = map.advise(memmap2::Advice::HugePage);
                map[..self.filled].copy_from_slice(self.filled());
                self.storage = Storage::Mapped(map);
            }
            // no map to be had (a strict overcommit policy, an address-space limit): the heap,
            // which reports its own failure as every allocation does
            Err(_) => {
                let mut v = Vec::new();
                v.reserve_exact(want);
                v.extend_from_slice(self.filled());
                v.resize(want, 0);
                self.storage = Storage::Heap(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills a buffer the way the stream source does, in reads of uneven sizes across the heap
    /// limit and several map growths, and checks every byte and the capacity bound.
    #[test]
    fn holds_every_byte_across_growth_within_twice_the_bytes() {
        let total = 9 * HEAP_LIMIT + 12_345;
        let byte = |i: usize| (i.wrapping_mul(2_654_435_761) >> 13) as u8;
        let mut b = StreamBuffer::new();
        let mut sizes = [1usize, 4096, 70_000, 1 << 20, 3].iter().cycle();
        while b.len() < total {
            let at = b.len();
            let spare = b.spare(32 * 1024);
            let n = (*sizes.next().unwrap()).min(spare.len()).min(total - at);
            for (i, s) in spare[..n].iter_mut().enumerate() {
                *s = byte(at + i);
            }
            b.advance(n);
            assert!(b.capacity() <= 2 * b.len() + 32 * 1024 + HUGE_PAGE);
        }
        assert!(b.filled().iter().enumerate().all(|(i, &x)| x == byte(i)));
        assert!(matches!(b.storage, Storage::Mapped(_)));
        b.truncate(1000);
        assert_eq!(b.filled().len(), 1000);
        assert!(b.filled().iter().enumerate().all(|(i, &x)| x == byte(i)));
    }
}
