//! Where the parser's bytes come from: a borrowed slice (a map or a buffer), or a stream that is
//! read on demand, exactly as far as the parser asks and never further.
#![forbid(unsafe_code)]

use std::io::{self, Read};

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
pub(crate) struct StreamSource<R> {
    reader: R,
    buf: Vec<u8>,
    ended: bool,
}

impl<R: Read> StreamSource<R> {
    pub fn new(reader: R) -> Self {
        StreamSource {
            reader,
            buf: Vec::new(),
            ended: false,
        }
    }

    /// The bytes read so far, and the reader positioned right after them.
    pub fn into_parts(self) -> (Vec<u8>, R) {
        (self.buf, self.reader)
    }
}

/// Largest single read: a huge declared length is read in steps, so memory follows the bytes that
/// actually arrive, not the number a hostile header claims.
const STEP: u64 = 1 << 20;

impl<R: Read> Source for StreamSource<R> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        while (self.buf.len() as u64) < end {
            if self.ended {
                return Ok(false);
            }
            let want = (end - self.buf.len() as u64).min(STEP);
            let got = (&mut self.reader).take(want).read_to_end(&mut self.buf)?;
            if got == 0 {
                self.ended = true;
            }
        }
        Ok(true)
    }

    fn bytes(&self) -> &[u8] {
        &self.buf
    }

    fn total_len(&self) -> Option<u64> {
        None
    }
}

/// The first bytes of a file of known length, as far as a previous parse of the same file read
/// them (a remote header): the parser is deterministic, so a second parse asks for no byte past
/// them; if it did, that is an I/O error, never a wrong verdict.
#[cfg(feature = "remote")]
pub(crate) struct PrefixSource<'a> {
    pub bytes: &'a [u8],
    pub total: u64,
}

#[cfg(feature = "remote")]
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
