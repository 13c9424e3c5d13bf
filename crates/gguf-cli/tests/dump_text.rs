//! The human `dump`: long strings shortened as long arrays are (JSON stays complete), metadata
//! and tensors as aligned tables, the tensors exactly as `gguf tensors` prints them.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::V;

#[test]
fn long_strings_are_shortened_and_tables_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let template = "{% for m in messages %}".repeat(540); // 12,420 characters
    let f = tiny_model()
        .kv("tokenizer.chat_template", V::str(&template))
        .kv(
            "a.very.long.key.name.that.is.longer.than.forty.characters",
            V::U32(1),
        )
        .write(dir.path(), "t.gguf");
    let (code, out, err) = run(dir.path(), &["dump", &f]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.contains("tokenizer.chat_template"))
        .unwrap();
    assert!(line.len() < 250, "{line}");
    assert!(line.ends_with("...\" (12,420 characters)"), "{line}");
    // the value column starts at the same place on every metadata line
    let meta: Vec<&str> = out
        .split("\nmetadata\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .collect();
    let col = meta[0].find("value").unwrap();
    for l in &meta[1..] {
        assert!(l[..col].ends_with("  "), "{l}");
        assert_ne!(l.as_bytes()[col], b' ', "{l}");
    }
    // the tensor section is the table of `gguf tensors`
    let (_, table, _) = run(dir.path(), &["tensors", &f]);
    assert!(out.ends_with(&format!("\ntensors\n{table}")), "{out}");
    // JSON is complete
    let (_, json, _) = run(dir.path(), &["dump", "--json", &f]);
    assert!(json.contains(&template));
    // and --max-chars shows more
    let (_, out, _) = run(dir.path(), &["dump", &f, "--max-chars", "20000"]);
    assert!(out.contains(&format!("{template:?}")));
}
