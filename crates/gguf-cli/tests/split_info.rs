//! `gguf info` on the first shard of a split model describes the whole model, as llama.cpp loads
//! it, and says how it is split; on another shard it says which one it is.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;

/// The value of `info --json`'s `key`.
fn json(dir: &std::path::Path, file: &str) -> serde_json::Value {
    let (code, out, err) = run(dir, &["info", "--json", file]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(out.trim()).unwrap()
}

#[test]
fn info_on_the_first_shard_describes_the_whole_model() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, _, err) = run(dir.path(), &["split", &f, "--max-tensors", "3", "-o", "s"]);
    assert_eq!(code, 0, "{err}");
    let first = "s-00001-of-00003.gguf";
    let whole = json(dir.path(), &f);
    let model = json(dir.path(), first);
    for key in [
        "tensor_count",
        "parameters",
        "tensor_data_size",
        "types",
        "layers",
    ] {
        assert_eq!(model[key], whole[key], "{key}");
    }
    let (code, out, err) = run(dir.path(), &["info", first]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 shards, read as one model"), "{out}");
    for (shard, n) in [
        ("s-00001-of-00003.gguf", 3),
        ("s-00002-of-00003.gguf", 3),
        ("s-00003-of-00003.gguf", 1),
    ] {
        let l = out
            .lines()
            .skip(1) // the title
            .find(|l| l.contains(shard))
            .unwrap_or_else(|| panic!("{out}"));
        let want = if n == 1 {
            "1 tensor ".to_string()
        } else {
            format!("{n} tensors")
        };
        assert!(l.contains(&want), "{l}");
    }
    assert!(out.contains("7 tensors, "), "{out}");

    // another shard: which one it is, and where the model is described
    let (code, out, _) = run(dir.path(), &["info", "s-00002-of-00003.gguf"]);
    assert_eq!(code, 0);
    assert!(out.contains("shard 2 of 3, this shard alone"), "{out}");

    // a shard missing: this shard alone, the reason on stderr, exit 1
    std::fs::remove_file(dir.path().join("s-00003-of-00003.gguf")).unwrap();
    let (code, out, err) = run(dir.path(), &["info", first]);
    assert_eq!(code, 1);
    assert!(err.contains("shard 3 of 3 is missing"), "{err}");
    assert!(out.contains("shard 1 of 3, this shard alone"), "{out}");
}
