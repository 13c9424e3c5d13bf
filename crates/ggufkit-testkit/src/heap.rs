//! A counting global allocator, for the tests and examples that bound or report the peak of live
//! heap bytes (`tests/hostile_alloc.rs`, `examples/tokenizer_build.rs`). A binary installs it
//! with `#[global_allocator] static ALLOC: Counting = Counting;` and measures with [`peak_of`];
//! the counters are process-wide, so measurements must not overlap.
//!
//! The one `unsafe` of the test kit: `GlobalAlloc` is an unsafe trait. Each method forwards to
//! the system allocator unchanged.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// The system allocator, counting the live bytes and their peak.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, SeqCst) + n;
    PEAK.fetch_max(now, SeqCst);
}

// SAFETY: every call forwards to the system allocator with the caller's arguments unchanged; the
// counters are plain atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is; `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // a moving realloc holds both blocks for a moment: counted as such (the stricter
            // figure)
            grew(new_size);
            CURRENT.fetch_sub(layout.size(), SeqCst);
        }
        p
    }
}

/// Peak live heap bytes allocated while `f` runs, above what was live before it. Meaningful only
/// in a binary whose global allocator is [`Counting`] (zero otherwise).
pub fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let base = CURRENT.load(SeqCst);
    PEAK.store(base, SeqCst);
    let r = f();
    (PEAK.load(SeqCst).saturating_sub(base), r)
}
