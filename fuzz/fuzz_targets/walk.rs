//! Walk every metadata value and tensor of whatever parses, strictly or permissively.
#![no_main]

use ggufkit::{Gguf, ReadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(g) = Gguf::from_bytes(data) {
        ggufkit_testkit::walk::walk(&g);
    }
    if let Ok(g) = Gguf::from_bytes_with(data, &ReadOptions::permissive()) {
        ggufkit_testkit::walk::walk(&g);
    }
});
