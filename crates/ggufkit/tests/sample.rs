//! The committed sample (`samples/tiny-llama.gguf`, the README's first command) is exactly what
//! the `make_sample` example writes, and it is valid and ggml-compatible.

#[test]
fn committed_sample_is_what_make_sample_writes() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let committed = std::fs::read(&path).expect("samples/tiny-llama.gguf is committed");
    let made = ggufkit_testkit::sample::tiny_llama().unwrap();
    assert!(
        committed == made,
        "regenerate with: cargo run -p ggufkit --example make_sample"
    );
    let report = ggufkit::validate_bytes(&committed);
    assert!(report.valid() && report.ggml_compatible(), "{report:?}");
    let g = ggufkit::Gguf::from_bytes(&committed).unwrap();
    let vocab = g.get_array("tokenizer.ggml.tokens").unwrap().len();
    assert_eq!(g.tensor("token_embd.weight").unwrap().shape(), &[64, vocab]);
}

/// llama.cpp (node-llama-cpp's prebuilt) loads the sample fully and generates from it, and the
/// audit finds nothing in it but the note of the oldest llama.cpp release that loads it.
#[test]
fn llama_cpp_loads_and_runs_the_sample() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let g = ggufkit::Gguf::open(&path).unwrap();
    let found = ggufkit::audit::audit(&g);
    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["model.oldest-release"], "{found:?}");
    assert!(
        found[0].message.starts_with("needs llama.cpp b"),
        "{found:?}"
    );
    let Some(loaded) = ggufkit_testkit::llama_load::load(&path, true) else {
        return;
    };
    assert!(loaded.ok, "llama.cpp refuses the sample: {loaded:?}");
    let generated = loaded.generated.unwrap_or_default();
    println!("generated token ids: {generated}");
    assert_eq!(generated.split(',').count(), 4, "{generated}");
}
