//! The batch modes' engine (`tokenize --jsonl`, `detokenize --jsonl`): input lines are read in
//! chunks, each chunk's lines are answered on every core, and the answers are written in input
//! order, one line per input line. Memory holds one chunk and its answers, whatever the input's
//! length.

use std::io::{self, BufRead, Write};

use rayon::prelude::*;

/// Lines per chunk: enough to keep every core busy, few enough that a chunk stays small.
const CHUNK_LINES: usize = 4096;
/// Bytes per chunk (a chunk ends at the line that crosses it): bounds memory on long lines.
const CHUNK_BYTES: usize = 4 << 20;

/// One input line: its number (from 1) and its bytes without the line end (`\n` or `\r\n`).
pub struct Line<'a> {
    pub number: u64,
    pub bytes: &'a [u8],
}

/// Answers every line of `input` with `answer` and writes the answers to `out`, each followed by
/// a newline, in input order. `scratch` makes the per-thread state `answer` reuses.
pub fn map_lines<S, I, F>(
    mut input: impl BufRead,
    out: &mut impl Write,
    scratch: I,
    answer: F,
) -> io::Result<u64>
where
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, &Line<'_>) -> String + Sync + Send,
{
    let mut number = 0u64;
    let mut text: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    loop {
        text.clear();
        ends.clear();
        let first = number + 1;
        while ends.len() < CHUNK_LINES && text.len() < CHUNK_BYTES {
            let start = text.len();
            if input.read_until(b'\n', &mut text)? == 0 {
                break;
            }
            let mut end = text.len();
            if text[start..end].ends_with(b"\n") {
                end -= 1;
                if text[start..end].ends_with(b"\r") {
                    end -= 1;
                }
            }
            text.truncate(end);
            ends.push(end);
        }
        if ends.is_empty() {
            return Ok(number);
        }
        number += ends.len() as u64;
        let answers: Vec<String> = (0..ends.len())
            .into_par_iter()
            .map_init(&scratch, |s, i| {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                let line = Line {
                    number: first + i as u64,
                    bytes: &text[start..ends[i]],
                };
                answer(s, &line)
            })
            .collect();
        for a in &answers {
            out.write_all(a.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
}

/// `bytes` as UTF-8, or the message naming the first byte that is not (`what` names the input).
pub fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, String> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        match e.error_len() {
            Some(_) => format!(
                "{what}: not UTF-8: invalid byte 0x{:02x} at byte offset {at}",
                bytes[at]
            ),
            None => format!("{what}: not UTF-8: it ends inside a character at byte offset {at}"),
        }
    })
}

/// The end of a batch: a closed stdout (`| head`) ends it quietly; any other failure to read the
/// input or write the answers is the command's error.
pub fn finish(done: io::Result<()>) -> Result<(), crate::cmd::CliError> {
    match done {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(crate::cmd::CliError::failed(
            format!("reading standard input or writing the answers failed: {e}"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_every_line_in_order_across_chunks() {
        let n = CHUNK_LINES * 2 + 7;
        let input: String = (0..n).map(|i| format!("{i}\r\n")).collect();
        let mut out = Vec::new();
        let lines = map_lines(
            input.as_bytes(),
            &mut out,
            || (),
            |_, l| format!("{}:{}", l.number, String::from_utf8_lossy(l.bytes)),
        )
        .unwrap();
        assert_eq!(lines, n as u64);
        let want: String = (0..n).map(|i| format!("{}:{i}\n", i + 1)).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn a_last_line_without_newline_and_empty_lines_count() {
        let mut out = Vec::new();
        map_lines(
            &b"a\n\nb"[..],
            &mut out,
            || (),
            |_, l| format!("{}={}", l.number, String::from_utf8_lossy(l.bytes)),
        )
        .unwrap();
        assert_eq!(out, b"1=a\n2=\n3=b\n");
    }

    #[test]
    fn utf8_errors_name_the_offset() {
        assert_eq!(utf8(b"ok", "x"), Ok("ok"));
        let e = utf8(b"ab\xffc", "stdin").unwrap_err();
        assert!(e.contains("byte offset 2"), "{e}");
        assert!(e.contains("0xff"), "{e}");
        // a sequence cut short at the end
        assert!(utf8(b"a\xc3", "x").unwrap_err().contains("offset 1"));
    }
}
