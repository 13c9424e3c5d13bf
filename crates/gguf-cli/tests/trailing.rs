//! One definition of trailing data, the contract's: bytes after the length the header implies,
//! except the zeros that pad a file without tensors to the alignment. `validate`, `info` and
//! `dump` agree on every file.

mod common;

use std::path::Path;

use common::run;
use ggufkit_testkit::encode::Model;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::V;

/// Whether `validate --json` warns of trailing data, and whether `info` and `dump` speak of it.
fn verdicts(dir: &Path, name: &str) -> (bool, bool, bool) {
    let (_, out, _) = run(dir, &["validate", "--json", name]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let validate = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["rule"] == "trailing_data");
    let (_, info, _) = run(dir, &["info", name]);
    let (_, dump, _) = run(dir, &["dump", name]);
    (
        validate,
        info.contains("trailing data"),
        dump.contains("trailing data"),
    )
}

#[test]
fn validate_info_and_dump_agree_on_trailing_data() {
    let dir = tempfile::tempdir().unwrap();
    // a tensor-less file: the encoder's bytes end where the header does
    let bare = Model::new()
        .kv("general.architecture", V::str("llama"))
        .encode();
    let tensors = std::fs::read(dir.path().join(tiny_model().write(dir.path(), "t.gguf"))).unwrap();
    let pad = 32 - bare.len() % 32;
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("bare.gguf", bare.clone(), false),
        // zero padding to the alignment, as ggml's writer adds: not trailing
        ("padded.gguf", [bare.clone(), vec![0; pad]].concat(), false),
        // padding that is not zeros, or more than the padding: trailing
        ("junk-pad.gguf", [bare.clone(), vec![7; pad]].concat(), true),
        (
            "over-pad.gguf",
            [bare.clone(), vec![0; pad + 32]].concat(),
            true,
        ),
        // a file with tensors: any byte after its end is trailing
        ("tensors.gguf", tensors.clone(), false),
        (
            "tensors-zero.gguf",
            [tensors.clone(), vec![0; 5]].concat(),
            true,
        ),
    ];
    for (name, bytes, trailing) in cases {
        std::fs::write(dir.path().join(name), &bytes).unwrap();
        assert_eq!(
            verdicts(dir.path(), name),
            (trailing, trailing, trailing),
            "{name} (validate, info, dump)"
        );
    }
}
