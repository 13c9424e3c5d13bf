//! llama.cpp's test tokenizer (`test`): each run of 5 bytes (fewer at the end of a fragment)
//! becomes the token `hash % vocab_size`, with `hash = hash * 31 + byte` from 0.
#![forbid(unsafe_code)]

/// Tokenizes one fragment, appending to `out`.
pub(crate) fn encode(n_tokens: u32, text: &[u8], out: &mut Vec<u32>) {
    if n_tokens == 0 {
        return;
    }
    for chunk in text.chunks(5) {
        let hash = chunk
            .iter()
            .fold(0u64, |h, &b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        out.push((hash % u64::from(n_tokens)) as u32);
    }
}
