//! Where the parser's bytes come from: a borrowed slice (a map or a buffer), or a stream that is
//! read on demand, exactly as far as the parser asks and never further.
#![forbid(unsafe_code)]

use std::io::{self, Read};

use super::stream_buffer::StreamBuffer;

/// Bytes the parser can borrow from offset 0, extended on request.
///
/// The parser asks `available(end)` before it touches any byte below `end`: for a slice that is a
/// comparison; a stream reads until it holds `end` bytes or ends. So one parser serves both, and a
/// stream's buffer only ever holds bytes that really arrived.
pub(crate) trait Source {
    /// True when bytes `[0, end)` exist (reading more from a stream if needed).
    fn available(&mut self, end: u64) -> io::Result<bool>;
    /// Every byte available so far.
    fn bytes(&self) -> &[u8];
    /// The total length when it is known without reading (slices and files).
    fn total_len(&self) -> Option<u64>;
    /// The parser's guess that the header ends near `end`: a source that pays per read (remote
    /// ranges) fetches that far at once; the others ignore it. Never changes what is parsed.
    fn expect(&mut self, end: u64) {
        let _ = end;
    }
}

/// A slice that is all there is.
pub(crate) struct SliceSource<'a>(pub &'a [u8]);

impl Source for SliceSource<'_> {
    #[inline(always)]
    fn available(&mut self, end: u64) -> io::Result<bool> {
        Ok(end <= self.0.len() as u64)
    }

    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        self.0
    }

    fn total_len(&self) -> Option<u64> {
        Some(self.0.len() as u64)
    }
}

/// A `Read` whose bytes are copied into a growing buffer as the parser asks for them.
///
/// `exact` streams read exactly as far as the parser asks, so the reader is left at the first
/// byte after the header (one read call per field: slow on an unbuffered `File`); the others read
/// ahead, straight into the buffer, each read offered all the room it has (a few dozen system
/// calls for a 16 MB header).
pub(crate) struct StreamSource<R> {
    reader: R,
    buf: StreamBuffer,
    ended: bool,
    exact: bool,
}

impl<R: Read> StreamSource<R> {
    /// A source that never reads past what the parser asks for.
    pub fn exact(reader: R) -> Self {
        StreamSource {
            reader,
            buf: StreamBuffer::new(),
            ended: false,
            exact: true,
        }
    }

    /// A source that reads ahead (the reader ends up past the header).
    pub fn chunked(reader: R) -> Self {
        StreamSource {
            exact: false,
            ..Self::exact(reader)
        }
    }

    /// The bytes read so far, and the reader positioned right after them.
    pub fn into_parts(self) -> (StreamBuffer, R) {
        (self.buf, self.reader)
    }
}

/// Largest single read: a huge declared length is read in steps, so memory follows the bytes that
/// actually arrive, not the number a hostile header claims.
const STEP: u64 = 1 << 20;

/// The smallest read-ahead of a chunked stream; past it, each read is offered all the room the
/// buffer made as it grew (see `stream_buffer`).
const CHUNK: usize = 32 * 1024;

impl<R: Read> StreamSource<R> {
    /// Reads until the bytes below `end` (at most [`STEP`] more) are there or the stream ends.
    /// An exact source asks for those bytes only; a chunked one offers each read call all the
    /// room it has, but never waits for more than the missing bytes (a pipe or a socket gives
    /// what it has).
    fn fill_to(&mut self, end: u64) -> io::Result<()> {
        let start = self.buf.len();
        let missing = (end - start as u64).min(STEP) as usize;
        let target = start + missing;
        while self.buf.len() < target {
            let have = self.buf.len();
            let room = if self.exact {
                target - have
            } else {
                (target - have).max(CHUNK)
            };
            let spare = self.buf.spare(room);
            let spare = if self.exact {
                &mut spare[..target - have]
            } else {
                spare
            };
            match self.reader.read(spare) {
                Ok(0) => {
                    self.ended = true;
                    break;
                }
                Ok(n) => self.buf.advance(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl<R: Read> Source for StreamSource<R> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        while (self.buf.len() as u64) < end {
            if self.ended {
                return Ok(false);
            }
            self.fill_to(end)?;
        }
        Ok(true)
    }

    fn bytes(&self) -> &[u8] {
        self.buf.filled()
    }

    fn total_len(&self) -> Option<u64> {
        None
    }
}

/// The first bytes of a file of known length, as far as a previous parse of the same file read
/// them (a remote header): the parser is deterministic, so a second parse asks for no byte past
/// them; if it did, that is an I/O error, never a wrong verdict.
pub(crate) struct PrefixSource<'a> {
    pub bytes: &'a [u8],
    pub total: u64,
}

impl Source for PrefixSource<'_> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        if end > self.total {
            Ok(false)
        } else if end <= self.bytes.len() as u64 {
            Ok(true)
        } else {
            Err(io::Error::other(format!(
                "byte {} of the {}-byte file was not fetched",
                end - 1,
                self.total
            )))
        }
    }

    fn bytes(&self) -> &[u8] {
        self.bytes
    }

    fn total_len(&self) -> Option<u64> {
        Some(self.total)
    }
}

/// How far a reader that pays per request fetches when the parser asks for bytes up to `end`
/// and `have` are held: at least `end`, at least double `have`, at least the `first_chunk`, as
/// far as the parser's guess of the header's end (`expected`, 0 for none), never past `total`.
/// The one rule of the remote reader and of the header read in rounds (`open/rounds.rs`).
pub(crate) fn next_fetch_end(
    have: u64,
    end: u64,
    first_chunk: u64,
    expected: u64,
    total: u64,
) -> u64 {
    end.max(have.saturating_mul(2))
        .max(first_chunk)
        .max(expected)
        .min(total)
}
