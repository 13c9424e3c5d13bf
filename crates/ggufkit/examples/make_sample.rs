//! Writes `samples/tiny-llama.gguf`, the small model the README's first command inspects, as
//! ggufkit's own writer makes it (the bytes are built in `ggufkit-testkit`'s `sample` module, so
//! that a test can check that the committed sample is exactly what this program writes).
//!
//! `cargo run -p ggufkit --example make_sample -- [OUT]`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "samples/tiny-llama.gguf".into());
    let bytes = ggufkit_testkit::sample::tiny_llama()?;
    // check what we wrote with our own reader before saving it
    let g = ggufkit::Gguf::from_bytes(&bytes)?;
    assert!(ggufkit::validate_bytes(&bytes).ggml_compatible());
    std::fs::write(&out, &bytes)?;
    println!("{out}: {} bytes, {} tensors", bytes.len(), g.tensor_count());
    Ok(())
}
