//! The stream reader over a reader returning small random chunks agrees with the slice parser.
//! The first input byte chooses the chunk sizes; the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, file)) = data.split_first() else {
        return;
    };
    let mut s = u32::from(seed) | 0x100;
    let sizes = (0..8)
        .map(|_| {
            s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            1 + (s >> 16) as usize % 67
        })
        .collect();
    ggufkit_testkit::checks::check_stream(file, sizes);
});
