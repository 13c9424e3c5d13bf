//! From ids back to bytes: a token's piece (llama.cpp's `token_to_piece`) and the
//! detokenizer (`llama_detokenize`: BOS/EOS removal, the leading space SentencePiece added, and
//! the clean-up of spaces before punctuation that some vocabularies ask for).
#![forbid(unsafe_code)]

use super::attr::TokenAttr;
use super::model::Model;
use super::rwkv::unescape;
use super::vocab::{Vocab, DNA_KMER_MARKER};
use super::Tokenizer;
use crate::error::TokenizerError;

/// Appends token `id`'s piece to `out`, skipping up to `lstrip` leading spaces.
pub(crate) fn piece(
    t: &Tokenizer<'_>,
    id: u32,
    lstrip: u32,
    special: bool,
    out: &mut Vec<u8>,
) -> Result<(), TokenizerError> {
    let v = &t.vocab;
    if v.model == Model::None {
        return Err(TokenizerError::NoVocab {
            model: v.model_name.to_string(),
        });
    }
    if id >= v.n_tokens {
        return Err(TokenizerError::IdOutOfRange {
            id,
            vocab_size: v.n_tokens,
        });
    }
    let attr = v.attr(id);
    let special_attr = TokenAttr::UNKNOWN | TokenAttr::CONTROL;
    if !special && attr.has(special_attr) {
        return Ok(());
    }
    let start = out.len();
    render(v, id, attr, out)?;
    if lstrip > 0 && v.model != Model::Rwkv {
        let mut k = 0;
        while k < lstrip as usize && out.get(start + k) == Some(&b' ') {
            k += 1;
        }
        out.drain(start..start + k);
    }
    Ok(())
}

/// Token `id`'s whole piece, as llama.cpp caches it (rendered as special).
fn render(
    v: &Vocab<'_>,
    id: u32,
    attr: TokenAttr,
    out: &mut Vec<u8>,
) -> Result<(), TokenizerError> {
    let text = v.text(id);
    let shown = TokenAttr::UNKNOWN | TokenAttr::CONTROL | TokenAttr::USER_DEFINED;
    match v.model {
        Model::Spm | Model::Wpm | Model::Ugm | Model::Bpe => {
            if attr.has(shown) {
                out.extend_from_slice(text);
            } else if attr.has(TokenAttr::NORMAL) {
                if v.model == Model::Bpe && !v.flags.escape_whitespaces {
                    decode_byte_level(text, out);
                } else {
                    let text = match v.dna_oov {
                        Some(oov) if id > oov => strip_dna_marker(text),
                        _ => text,
                    };
                    unescape_whitespace(text, out);
                }
            } else if attr.has(TokenAttr::BYTE) {
                out.push(token_to_byte(v, id)?);
            }
        }
        Model::Rwkv => out.extend_from_slice(&unescape(text)),
        Model::Test => out.extend_from_slice(format!("{id:x}").as_bytes()),
        Model::Plamo2 => match plamo2_byte(text) {
            Some(b) if attr.has(TokenAttr::BYTE) => out.push(b),
            _ => out.extend_from_slice(text),
        },
        Model::None => {}
    }
    Ok(())
}

/// A hybriddna k-mer's text without its marker.
fn strip_dna_marker(text: &[u8]) -> &[u8] {
    if text.len() > DNA_KMER_MARKER.len() && text.ends_with(DNA_KMER_MARKER) {
        &text[..text.len() - DNA_KMER_MARKER.len()]
    } else {
        text
    }
}

/// `▁` (U+2581) back to spaces.
fn unescape_whitespace(text: &[u8], out: &mut Vec<u8>) {
    const ESC: &[u8] = "\u{2581}".as_bytes();
    let mut rest = text;
    while let Some(i) = memchr::memmem::find(rest, ESC) {
        out.extend_from_slice(&rest[..i]);
        out.push(b' ');
        rest = &rest[i + ESC.len()..];
    }
    out.extend_from_slice(rest);
}

/// A byte-level BPE token's text back to its bytes (llama.cpp's `llama_decode_text`); a
/// character outside the byte map is written `[UNK_BYTE_0x<its UTF-8 in hex><the text>]`.
fn decode_byte_level(text: &[u8], out: &mut Vec<u8>) {
    super::unicode::decode_lenient(text, |cp, _| {
        match char::from_u32(cp).and_then(super::unicode::char_to_byte) {
            Some(b) => out.push(b),
            None => {
                out.extend_from_slice(b"[UNK_BYTE_0x");
                for b in utf8_of(cp) {
                    out.extend_from_slice(format!("{b:02x}").as_bytes());
                }
                out.extend_from_slice(text);
                out.push(b']');
            }
        }
    });
}

/// A codepoint's UTF-8 bytes as llama.cpp writes them (surrogates included).
fn utf8_of(cp: u32) -> Vec<u8> {
    match cp {
        0..=0x7F => vec![cp as u8],
        0x80..=0x7FF => vec![0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8],
        0x800..=0xFFFF => vec![
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ],
        _ => vec![
            0xF0 | ((cp >> 18) & 0x07) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ],
    }
}

/// A byte token's value: the two characters after `<0x`, read as C's `strtol(.., 16)` reads them.
pub(crate) fn token_to_byte(v: &Vocab<'_>, id: u32) -> Result<u8, TokenizerError> {
    let text = v.text(id);
    let digits = text
        .get(3..text.len().min(5))
        .ok_or(TokenizerError::BadByteToken { id })?;
    Ok(strtol_hex(digits) as u8)
}

/// C's `strtol(s, NULL, 16)` on a short string: leading spaces, a sign, an optional `0x`, then
/// hex digits up to the first other byte.
fn strtol_hex(s: &[u8]) -> i64 {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    if i + 2 < s.len() + 1
        && s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        i += 2;
    }
    let mut n: i64 = 0;
    while let Some(d) = s.get(i).and_then(|c| (*c as char).to_digit(16)) {
        n = n * 16 + i64::from(d);
        i += 1;
    }
    if neg {
        -n
    } else {
        n
    }
}

/// A PLaMo-2 byte token's value (`<0xXX>` with two hex digits).
fn plamo2_byte(text: &[u8]) -> Option<u8> {
    if text.len() == 6 && text.starts_with(b"<0x") && text[5] == b'>' {
        let h = std::str::from_utf8(&text[3..5]).ok()?;
        if h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return u8::from_str_radix(h, 16).ok();
        }
    }
    None
}

/// `llama_detokenize` into `out` (appended).
pub(crate) fn detokenize(
    t: &Tokenizer<'_>,
    ids: &[u32],
    remove_special: bool,
    unparse_special: bool,
    out: &mut Vec<u8>,
) -> Result<(), TokenizerError> {
    let v = &t.vocab;
    if v.model == Model::None {
        return Ok(());
    }
    let mut ids = ids;
    let mut remove_space = v.flags.add_space_prefix;
    if remove_special && v.flags.add_bos && !ids.is_empty() && Some(ids[0]) == v.special.bos {
        remove_space = false;
        ids = &ids[1..];
    }
    if remove_special && v.flags.add_eos && ids.last().is_some_and(|&l| Some(l) == v.special.eos) {
        ids = &ids[..ids.len() - 1];
    }
    let start = out.len();
    for &id in ids {
        piece(t, id, u32::from(remove_space), unparse_special, out)?;
        remove_space = false;
    }
    if v.flags.clean_spaces {
        let cleaned = clean_spaces(&out[start..]);
        out.truncate(start);
        out.extend_from_slice(&cleaned);
    }
    Ok(())
}

/// llama.cpp's three passes over the detokenized text: no space before `?!.,`; a lone `'`
/// between spaces loses both; no space before `'s`, `'m`, `'re`, `'ve`.
fn clean_spaces(text: &[u8]) -> Vec<u8> {
    // first pass
    let mut t: Vec<u8> = Vec::with_capacity(text.len());
    if let Some(&first) = text.first() {
        t.push(first);
    }
    for i in 1..text.len() {
        let x = text[i];
        if text[i - 1] == b' ' && matches!(x, b'?' | b'!' | b'.' | b',') {
            t.pop();
        }
        t.push(x);
    }
    // second pass: " ' " -> "'"
    let src = t;
    let mut t: Vec<u8> = Vec::with_capacity(src.len());
    let mut src = src;
    if let Some(&first) = src.first() {
        t.push(first);
    }
    let mut i = 1;
    while i < src.len() {
        let x = src[i];
        if x == b'\'' && i + 1 < src.len() && src[i - 1] == b' ' && src[i + 1] == b' ' {
            t.pop();
            src[i + 1] = 0;
            t.push(x);
            i += 2;
            continue;
        }
        t.push(x);
        i += 1;
    }
    // third pass: contractions
    let src = t;
    let mut t: Vec<u8> = Vec::with_capacity(src.len());
    if let Some(&first) = src.first() {
        t.push(first);
    }
    for i in 1..src.len() {
        let x = src[i];
        if src[i - 1] == b' ' && x == b'\'' && i + 1 < src.len() {
            let x1 = src[i + 1];
            if x1 == b's' || x1 == b'm' {
                t.pop();
            } else if i + 2 < src.len() {
                let x2 = src[i + 2];
                if (x1 == b'r' || x1 == b'v') && x2 == b'e' {
                    t.pop();
                }
            }
        }
        t.push(x);
    }
    t
}
