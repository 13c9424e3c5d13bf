//! llama.cpp's UTF-8 decoding (`unicode_cpt_from_utf8`, `unicode_cpts_from_utf8`): lenient,
//! one U+FFFD per byte it cannot decode, and laxer than the standard (it accepts overlong forms,
//! surrogates and values past U+10FFFF, checking only the lead byte's length and that the
//! continuation bytes are 10xxxxxx). Detokenizing needs this form; text given as `&str` decodes
//! the same way as Rust's own decoding.
#![forbid(unsafe_code)]

/// What llama.cpp puts for a byte it cannot decode.
pub const REPLACEMENT: u32 = 0xFFFD;

/// Decodes one codepoint at `bytes[at..]` as llama.cpp does: `Some((codepoint, length))`, or
/// `None` where llama.cpp throws "invalid character" (the caller then skips one byte).
fn decode_one(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let b0 = *bytes.get(at)? as u32;
    let cont = |k: usize| -> Option<u32> {
        let b = *bytes.get(at + k)?;
        (b & 0xC0 == 0x80).then_some(b as u32 & 0x3F)
    };
    if b0 & 0x80 == 0 {
        return Some((b0, 1));
    }
    if b0 & 0x40 == 0 {
        return None;
    }
    if b0 & 0x20 == 0 {
        return Some((((b0 & 0x1F) << 6) | cont(1)?, 2));
    }
    if b0 & 0x10 == 0 {
        return Some((((b0 & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?, 3));
    }
    if b0 & 0x08 == 0 {
        let cp = ((b0 & 0x07) << 18) | (cont(1)? << 12) | (cont(2)? << 6) | cont(3)?;
        return Some((cp, 4));
    }
    None
}

/// The codepoints of `bytes` as llama.cpp's `unicode_cpts_from_utf8` gives them.
pub fn cpts_from_utf8(bytes: &[u8]) -> Vec<u32> {
    let mut out = Vec::with_capacity(bytes.len());
    decode_lenient(bytes, |cp, _| out.push(cp));
    out
}

/// Walks `bytes` as llama.cpp decodes them, calling `f(codepoint, byte_offset)` for each
/// codepoint (U+FFFD, one byte long, for a byte it cannot decode).
pub fn decode_lenient(bytes: &[u8], mut f: impl FnMut(u32, usize)) {
    let mut at = 0;
    while at < bytes.len() {
        match decode_one(bytes, at) {
            Some((cp, len)) => {
                f(cp, at);
                at += len;
            }
            None => {
                f(REPLACEMENT, at);
                at += 1;
            }
        }
    }
}
