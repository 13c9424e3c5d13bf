//! The batch modes' engine (`tokenize --jsonl`, `detokenize --jsonl`): input lines are read in
//! chunks, each chunk's lines are answered on every core, and the answers are written in input
//! order, one line per input line. Memory holds two chunks and the answers of two, whatever the
//! input's length.

use std::io::{self, BufRead, Write};

use crossbeam_utils::CachePadded;
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

/// Bytes read from the input at a time.
const READ_BYTES: usize = 1 << 20;

/// Lines answered into one buffer: a chunk's answers are written by its parts, in order.
const PART_LINES: usize = 64;

/// Answers every line of `input` with `answer` (which appends the line's answer to the string it
/// is given) and writes the answers to `out`, each followed by a newline, in input order.
/// `scratch(part, parts)` makes the state `answer` reuses over a part of [`PART_LINES`] lines of
/// a chunk of `parts` parts (the parts are answered on every core).
///
/// The calling thread reads the next chunk and writes the previous chunk's answers while the
/// pool answers the current one, so the workers never wait for the serial input and output.
/// The answers go into a few buffers per chunk that live as long as the batch: no string is made
/// per line, and none made by a worker is freed by another thread (a free from another thread
/// takes the allocator's lock of the worker's arena, which the workers then waited on).
pub fn map_lines<S, I, F>(
    input: impl BufRead,
    out: &mut impl Write,
    scratch: I,
    answer: F,
) -> io::Result<u64>
where
    I: Fn(usize, usize) -> S + Sync + Send,
    F: Fn(&mut S, &Line<'_>, &mut String) + Sync + Send,
{
    let (scratch, answer) = (&scratch, &answer);
    // reads of a megabyte, not of stdin's 8 KiB buffer: the reading thread shares the cores
    // with the workers, and a system call per 8 KiB was most of its time
    let mut input = io::BufReader::with_capacity(READ_BYTES, input);
    let mut number = 0u64;
    let mut chunk = Chunk::default();
    chunk.read(&mut input, &mut number)?;
    let mut spare = Chunk::default();
    std::thread::scope(|scope| -> io::Result<u64> {
        while !chunk.ends.is_empty() {
            let working = scope.spawn(move || {
                chunk.answer(scratch, answer);
                chunk
            });
            spare.write_answers(out)?;
            spare.read(&mut input, &mut number)?;
            let done = working
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            chunk = std::mem::replace(&mut spare, done);
        }
        spare.write_answers(out)?;
        Ok(number)
    })
}

/// Consecutive input lines: their bytes one after another, where each ends, the first's number;
/// and once answered, the answers of each part of [`PART_LINES`] lines.
#[derive(Default)]
struct Chunk {
    text: Vec<u8>,
    ends: Vec<usize>,
    first: u64,
    /// The answers of lines `k * PART_LINES..`, each followed by a newline, in `answers[k]`
    /// (the strings are cleared and kept from chunk to chunk). Each on cache lines of its own:
    /// two threads appending to two strings side by side would write the same cache line.
    answers: Vec<CachePadded<String>>,
    /// How many of `answers` hold this chunk's.
    parts: usize,
}

impl Chunk {
    /// Fills the chunk with the next lines of `input` (none at its end); `number` is the number
    /// of the last line read before, and after.
    fn read(&mut self, input: &mut impl BufRead, number: &mut u64) -> io::Result<()> {
        let (text, ends) = (&mut self.text, &mut self.ends);
        text.clear();
        ends.clear();
        self.parts = 0;
        self.first = *number + 1;
        while ends.len() < CHUNK_LINES && text.len() < CHUNK_BYTES {
            let start = text.len();
            if input.read_until(b'\n', text)? == 0 {
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
        *number += ends.len() as u64;
        Ok(())
    }

    /// Every line's answer, in order, computed on rayon's pool a part at a time.
    fn answer<S, I, F>(&mut self, scratch: &I, answer: &F)
    where
        I: Fn(usize, usize) -> S + Sync + Send,
        F: Fn(&mut S, &Line<'_>, &mut String) + Sync + Send,
    {
        let (text, ends, first) = (&self.text, &self.ends, self.first);
        let parts = ends.len().div_ceil(PART_LINES);
        self.parts = parts;
        if self.answers.len() < parts {
            self.answers.resize_with(parts, CachePadded::default);
        }
        self.answers[..parts]
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, buf)| {
                let s = &mut scratch(k, parts);
                buf.clear();
                let lines = k * PART_LINES..ends.len().min((k + 1) * PART_LINES);
                for i in lines {
                    let start = if i == 0 { 0 } else { ends[i - 1] };
                    let line = Line {
                        number: first + i as u64,
                        bytes: &text[start..ends[i]],
                    };
                    answer(s, &line, buf);
                    buf.push('\n');
                }
            });
    }

    /// Writes the answers of the lines last answered (none once written or read again).
    fn write_answers(&mut self, out: &mut impl Write) -> io::Result<()> {
        for a in &self.answers[..self.parts] {
            out.write_all(a.as_bytes())?;
        }
        self.parts = 0;
        Ok(())
    }
}

/// `bytes` as UTF-8, or the message naming the first byte that is not (`what` names the input).
pub fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, String> {
    // the SIMD check first (a megabyte in a tenth of the time); the standard one finds the offset
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Ok(text);
    }
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

    /// Answers each line of `input` with `NUMBER=TEXT`: the lines read, and the output.
    fn numbered(input: &[u8]) -> (u64, String) {
        let mut out = Vec::new();
        let lines = map_lines(
            input,
            &mut out,
            |_, _| (),
            |_, l, out| {
                out.push_str(&format!(
                    "{}={}",
                    l.number,
                    String::from_utf8_lossy(l.bytes)
                ))
            },
        )
        .unwrap();
        (lines, String::from_utf8(out).unwrap())
    }

    #[test]
    fn answers_every_line_in_order_across_chunks() {
        let n = CHUNK_LINES * 2 + 7;
        let input: String = (0..n).map(|i| format!("{i}\r\n")).collect();
        let want: String = (0..n).map(|i| format!("{}={i}\n", i + 1)).collect();
        assert_eq!(numbered(input.as_bytes()), (n as u64, want));
    }

    #[test]
    fn a_last_line_without_newline_and_empty_lines_count() {
        assert_eq!(numbered(b"a\n\nb"), (3, "1=a\n2=\n3=b\n".to_string()));
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
