//! A safetensors file of arbitrary bytes: the header reader never panics, and what it accepts
//! keeps its promises (every tensor's bytes inside the data section, its byte count its shape's,
//! no two tensors overlapping, names sorted). The first bytes are also wrapped as a well-formed
//! length prefix, so the JSON checks are reached, not only the length checks.
#![no_main]

use std::path::Path;

use ggufkit::convert::safetensors::parse_header;
use libfuzzer_sys::fuzz_target;

fn check(file: &[u8]) {
    let Ok(tensors) = parse_header(Path::new("fuzz.safetensors"), file) else {
        return;
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for w in tensors.windows(2) {
        assert!(w[0].name <= w[1].name, "names sorted");
    }
    for t in &tensors {
        assert!(t.bytes.start <= t.bytes.end && t.bytes.end <= file.len());
        let n = t.shape.iter().try_fold(t.dtype.size(), |a, &d| a.checked_mul(d));
        assert_eq!(n, Some((t.bytes.end - t.bytes.start) as u64));
        if !t.bytes.is_empty() {
            spans.push((t.bytes.start, t.bytes.end));
        }
    }
    spans.sort();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "no overlap");
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    // the same bytes as a header of their own length, followed by a little data
    let mut file = (data.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(data);
    file.extend_from_slice(&[0u8; 64]);
    check(&file);
});
