//! The byte-to-character map of byte-level BPE (GPT-2's `bytes_to_unicode`, llama.cpp's
//! `unicode_byte_to_utf8` / `unicode_utf8_to_byte`): the printable bytes `!`..=`~`,
//! `¡`..=`¬` and `®`..=`ÿ` stand for themselves; the 68 others, in byte order, become
//! U+0100, U+0101, ... U+0143.
#![forbid(unsafe_code)]

/// Whether byte `b` stands for itself.
const fn is_direct(b: u32) -> bool {
    matches!(b, 0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF)
}

/// The bytes that do not stand for themselves, in byte order (the n-th becomes U+0100 + n).
const SHIFTED: [u8; 68] = {
    let mut out = [0u8; 68];
    let mut n = 0;
    let mut b = 0u32;
    while b < 256 {
        if !is_direct(b) {
            out[n] = b as u8;
            n += 1;
        }
        b += 1;
    }
    out
};

/// The character byte-level BPE writes for byte `b`.
pub fn byte_to_char(b: u8) -> char {
    if is_direct(b as u32) {
        return b as char;
    }
    // the bytes below a shifted byte that are shifted too: its index in SHIFTED
    let n = SHIFTED.partition_point(|&s| s < b) as u32;
    char::from_u32(0x100 + n).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte that character `c` stands for in byte-level BPE, or `None` when `c` is not one of
/// the 256 (llama.cpp throws there).
pub fn char_to_byte(c: char) -> Option<u8> {
    let cp = c as u32;
    if cp < 0x100 {
        return is_direct(cp).then_some(cp as u8);
    }
    SHIFTED.get(cp.checked_sub(0x100)? as usize).copied()
}
