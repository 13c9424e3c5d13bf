//! Token ids and their pieces, as `gguf tokenize` and `gguf detokenize` print them: a table for
//! people, a line of ids, JSON, and the JSON Lines answers of the batch modes.

use std::fmt::Write;

use ggufkit::escape::escape_line;

use super::json::Json;
use super::table::{Align, Columns};

/// A piece's bytes on one line: UTF-8 escaped as [`escape_line`] does, and each byte that is not
/// part of a character (a piece may hold half of one) as `\xNN`.
pub fn piece_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape_line(chunk.valid()));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// The readable table: one row per token, its id and its piece, then the count.
pub fn table(ids: &[u32], pieces: &[Vec<u8>]) -> String {
    let mut columns = Columns::new(&[("id", Align::Right), ("piece", Align::Left)]);
    let shown: Vec<String> = pieces.iter().map(|p| piece_text(p)).collect();
    let numbers: Vec<String> = ids.iter().map(u32::to_string).collect();
    for (n, p) in numbers.iter().zip(&shown) {
        columns.measure([n.as_str(), p.as_str()]);
    }
    let mut out = columns.buffer_for(ids.len() + 2, 0);
    columns.header_line(&mut out);
    for (n, p) in numbers.iter().zip(&shown) {
        columns.line(&mut out, [n.as_str(), p.as_str()]);
    }
    let _ = writeln!(
        out,
        "{}",
        super::counted(ids.len() as u64, "token", "tokens")
    );
    out
}

/// The ids on one line, a space apart.
pub fn ids_line(ids: &[u32]) -> String {
    let mut out = String::with_capacity(ids.len() * 7 + 1);
    let mut digits = itoa::Buffer::new();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(digits.format(*id));
    }
    out.push('\n');
    out
}

fn ids_array(out: &mut String, ids: &[u32]) {
    out.reserve(ids.len() * 7 + 2);
    // `itoa`, not `write!`: formatting the ids was a tenth of a batch's instructions
    let mut digits = itoa::Buffer::new();
    out.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(digits.format(*id));
    }
    out.push(']');
}

/// `{"ids": [...], "pieces": [...]}` on one line; a piece that is not UTF-8 is `{"hex": ...}`.
pub fn json(ids: &[u32], pieces: &[Vec<u8>]) -> String {
    let mut j = Json::new();
    j.raw("{").key("ids");
    ids_array(&mut j.out, ids);
    j.raw(",").key("pieces").raw("[");
    for (i, p) in pieces.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.text(p);
    }
    j.raw("]}\n");
    j.out
}

/// A batch answer, appended to `out` (the batch modes write a chunk's answers into a few
/// buffers they reuse, not a string per line): `{"ids": [...]}`.
pub fn ids_answer(out: &mut String, ids: &[u32]) {
    out.push_str("{\"ids\":");
    ids_array(out, ids);
    out.push('}');
}

/// A batch answer appended to `out`: `{"text": ...}`, the text as a JSON string, or
/// `{"hex": ...}` when the bytes are not UTF-8 (a piece can end inside a character).
pub fn text_answer(out: &mut String, text: &[u8]) {
    let mut j = Json {
        out: std::mem::take(out),
    };
    j.raw("{").key("text").text(text).raw("}");
    *out = j.out;
}

/// A batch answer appended to `out`, for a line that could not be answered: `{"error": ...}`.
pub fn error_answer(out: &mut String, message: &str) {
    let mut j = Json {
        out: std::mem::take(out),
    };
    j.raw("{").key("error").str(message).raw("}");
    *out = j.out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_stay_on_their_line() {
        assert_eq!(piece_text(b"a\nb"), "a\\nb");
        assert_eq!(piece_text("é".as_bytes()), "é");
        assert_eq!(piece_text(b"\xe2\x82"), "\\xe2\\x82");
        assert_eq!(piece_text(b" x\xff"), " x\\xff");
    }

    #[test]
    fn renders() {
        let pieces = vec![b"<s>".to_vec(), b" Hello".to_vec(), b"\xf0".to_vec()];
        let ids = [1, 15043, 240];
        assert_eq!(ids_line(&ids), "1 15043 240\n");
        assert_eq!(
            json(&ids, &pieces),
            "{\"ids\":[1,15043,240],\"pieces\":[\"<s>\",\" Hello\",{\"hex\":\"f0\"}]}\n"
        );
        let answer = |f: &dyn Fn(&mut String)| {
            let mut out = String::from("x");
            f(&mut out);
            out
        };
        assert_eq!(answer(&|o| ids_answer(o, &[])), "x{\"ids\":[]}");
        assert_eq!(answer(&|o| ids_answer(o, &[1, 23])), "x{\"ids\":[1,23]}");
        assert_eq!(
            answer(&|o| text_answer(o, b"a\"b")),
            "x{\"text\":\"a\\\"b\"}"
        );
        assert_eq!(answer(&|o| error_answer(o, "bad")), "x{\"error\":\"bad\"}");
        let t = table(&ids, &pieces);
        assert_eq!(
            t,
            "   id  piece\n    1  <s>\n15043   Hello\n  240  \\xf0\n3 tokens\n"
        );
    }
}
