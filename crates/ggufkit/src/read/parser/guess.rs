//! The parser's guess of where a header ends, for sources that pay per read: a remote reader
//! fetches that far at once ([`Source::expect`](crate::read::source::Source::expect)) instead of
//! doubling what it holds, so a header larger than the first range costs one more request. A
//! wrong guess costs a request or some bytes, never a different result.
//!
//! What makes a header large is a vocabulary: `tokenizer.ggml.tokens`, a string per token,
//! followed by the per-token `scores` (f32) and `token_type` (i32) arrays. So the guess is made at
//! a large string array: its end (from a mean string length), 8 bytes a string for those two
//! arrays, then an eighth more and 64 KiB for the rest (other pairs, the tensor infos).
#![forbid(unsafe_code)]

/// Mean bytes of a vocabulary's string, its 8-byte length included, before any is read: tokens
/// average 7 to 9 bytes in the corpus's vocabularies.
pub(super) const MEAN_STRING: u64 = 16;

/// Where the header probably ends, given a string array of `count` strings from `start` that
/// probably ends at `array_end`.
pub(super) fn header_end_guess(start: u64, array_end: u64, count: u64) -> u64 {
    let guess = array_end.saturating_add(count.saturating_mul(8));
    guess
        .saturating_add(guess.saturating_sub(start) / 8)
        .saturating_add(64 * 1024)
}
