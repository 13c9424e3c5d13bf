//! The parser's fast paths read arbitrary bytes exactly as its field-by-field path does: the same
//! index, findings and stop, strictly and permissively (`ggufkit::validate::check_fast_paths`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = ggufkit::validate::check_fast_paths(data) {
        panic!("{e}");
    }
});
