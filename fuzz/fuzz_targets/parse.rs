//! Parse and validate arbitrary bytes: strict, permissive, `validate`, and their agreement.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    ggufkit_testkit::checks::check_verdicts(data);
});
