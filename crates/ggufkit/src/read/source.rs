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
/// ahead in chunks that grow with the buffer (a system call per chunk, not per field).
pub(crate) struct StreamSource<R> {
    reader: R,
    buf: Vec<u8>,
    ended: bool,
    exact: bool,
    /// The chunked source's read buffer, made on its first read.
    scratch: Option<Box<[u8]>>,
}

impl<R: Read> StreamSource<R> {
    /// A source that never reads past what the parser asks for.
    pub fn exact(reader: R) -> Self {
        StreamSource {
            reader,
            buf: Vec::new(),
            ended: false,
            exact: true,
            scratch: None,
        }
    }

    /// A source that reads ahead in chunks (the reader ends up past the header).
    pub fn chunked(reader: R) -> Self {
        StreamSource {
            exact: false,
            ..Self::exact(reader)
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

/// The read-ahead of a chunked stream: a read call per 32 KiB of header instead of one per
/// field, and never more than this beyond the bytes that arrived.
const CHUNK: usize = 32 * 1024;

impl<R: Read> StreamSource<R> {
    /// Reads what is missing below `end`: a long run (a string or array body) exactly, as the
    /// exact source does; a short one with one read call of up to a chunk into a scratch buffer
    /// (whatever the reader has: a pipe or socket is not waited on for the read-ahead).
    fn read_chunk(&mut self, end: u64) -> io::Result<()> {
        let missing = (end - self.buf.len() as u64).min(STEP);
        if missing > CHUNK as u64 {
            // at most STEP beyond the bytes that arrived, zeroed once, filled by as few calls
            // as the reader allows
            let have = self.buf.len();
            let want = have + missing as usize;
            self.buf.resize(want, 0);
            let mut filled = have;
            while filled < want {
                match self.reader.read(&mut self.buf[filled..want]) {
                    Ok(0) => {
                        self.ended = true;
                        break;
                    }
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.buf.truncate(filled);
                        return Err(e);
                    }
                }
            }
            self.buf.truncate(filled);
            return Ok(());
        }
        let scratch = self
            .scratch
            .get_or_insert_with(|| vec![0; CHUNK].into_boxed_slice());
        let got = loop {
            match self.reader.read(scratch) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        self.buf.extend_from_slice(&scratch[..got]);
        self.ended = got == 0;
        Ok(())
    }
}

impl<R: Read> Source for StreamSource<R> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        while (self.buf.len() as u64) < end {
            if self.ended {
                return Ok(false);
            }
            if !self.exact {
                self.read_chunk(end)?;
                continue;
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
