//! Parse → write → parse: whatever opens (strictly) is written back by the library's writer and
//! reads back equal, byte for byte up to the length the header implies, except that padding is
//! written as zeros (the spec does not require zero padding, so a valid file may hold others).
#![no_main]

use ggufkit::write::GgufBuilder;
use ggufkit::Gguf;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(g) = Gguf::from_bytes(data) else {
        return;
    };
    let out = GgufBuilder::from_gguf(&g)
        .expect("a valid file has only known types")
        .to_vec()
        .expect("a valid file can be written back");
    let h = Gguf::from_bytes(&out).expect("what the writer wrote reads back");
    ggufkit_testkit::compare::assert_same(&g, &h);
    let mut expected = data[..out.len()].to_vec();
    ggufkit_testkit::compare::zero_padding(&g, &mut expected);
    assert_eq!(
        out, expected,
        "the writer reproduces a valid file byte for byte"
    );
});
