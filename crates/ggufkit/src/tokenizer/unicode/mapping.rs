//! Codepoint-to-codepoint mappings of llama.cpp: lowercase (`unicode_tolower`), its one-to-one
//! NFD (`unicode_cpts_normalize_nfd`: a codepoint becomes the first codepoint of its
//! decomposition, never several) and its test for Han characters (`unicode_cpt_is_han`).
#![forbid(unsafe_code)]

use super::tables::{LOWERCASE, NFD_RANGES};

/// The lowercase of `cp` by llama.cpp's map, or `cp` itself when the map has none.
pub fn to_lower(cp: u32) -> u32 {
    match LOWERCASE.binary_search_by_key(&cp, |&(from, _)| from) {
        Ok(i) => LOWERCASE[i].1,
        Err(_) => cp,
    }
}

/// `cp` normalized as llama.cpp's NFD does it: the `nfd` of the range holding it, or `cp`.
pub fn nfd(cp: u32) -> u32 {
    let i = NFD_RANGES.partition_point(|&(first, _, _)| first <= cp);
    match i.checked_sub(1).map(|i| NFD_RANGES[i]) {
        Some((first, last, to)) if first <= cp && cp <= last => to,
        _ => cp,
    }
}

/// Whether `cp` is in one of the CJK ideograph blocks llama.cpp calls Han (Kimi-K2's
/// pre-tokenizer splits on them): unified ideographs and extensions A to F, and the two
/// compatibility blocks.
pub fn is_han(cp: u32) -> bool {
    matches!(cp,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x2_0000..=0x2_A6DF
        | 0x2_A700..=0x2_B73F
        | 0x2_B740..=0x2_B81F
        | 0x2_B820..=0x2_CEAF
        | 0x2_CEB0..=0x2_EBEF
        | 0xF900..=0xFAFF
        | 0x2_F800..=0x2_FA1F)
}
