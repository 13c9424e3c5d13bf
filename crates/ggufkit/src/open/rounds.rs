//! A header read in rounds by a caller that fetches the bytes itself, asynchronously: a browser's
//! `Blob` or `fetch` with `Range` headers (the WebAssembly package), where the parser cannot wait
//! for a read. Each round parses what is held; when the parser asks for a byte not yet held, the
//! round names the range to fetch next, chosen by the same rule as the remote reader's
//! (`read/source.rs`, `next_fetch_end`): at least doubling what is held, at least a first chunk, as far as the
//! parser guesses the header goes. So a header of `H` bytes costs `O(log H)` reads and rounds,
//! the transfer is at most the header plus one chunk, and the parses together cost a few times
//! one parse. A 20 GB file's header is read without a byte of its tensor data.
//!
//! The object's length is known, so every verdict is the one a local file of that length gets.
#![forbid(unsafe_code)]

use std::io;
use std::ops::Range;

use crate::error::Result;
use crate::layout::ByteLayout;
use crate::read::data::verdict_bytes_end;
use crate::read::parser::{self, Findings, Header, Mode, Stop};
use crate::read::source::{next_fetch_end, PrefixSource, Source};
use crate::read::{outline_sized, Gguf, Outline, ReadOptions};
use crate::validate::{verdicts, Report};

/// A header being read in rounds (see the module's documentation): ask
/// [`HeaderRounds::next_range`], fetch that range, [`HeaderRounds::push`] the bytes, and again
/// until it answers `None`; then the file ([`HeaderRounds::gguf`]), its verdicts
/// ([`HeaderRounds::report`]) or its byte layout ([`HeaderRounds::layout`]).
pub struct HeaderRounds {
    total: u64,
    bytes: Vec<u8>,
    first_chunk: u64,
    expected: u64,
    mode: Mode,
}

/// The source of one round: the bytes held, a byte past them is a request for more.
struct RoundSource<'a> {
    bytes: &'a [u8],
    total: u64,
    /// The end the parser asked for beyond what is held.
    wanted: Option<u64>,
    expected: &'a mut u64,
}

impl Source for RoundSource<'_> {
    fn available(&mut self, end: u64) -> io::Result<bool> {
        let have = self.bytes.len() as u64;
        if end <= have {
            return Ok(true);
        }
        if end > self.total && have >= self.total {
            // exactly what a local file of this length answers, once all of it is held (the
            // parser reads what there is of a field cut short)
            return Ok(false);
        }
        self.wanted = Some(end.min(self.total));
        Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "bytes not fetched yet",
        ))
    }

    fn bytes(&self) -> &[u8] {
        self.bytes
    }

    fn total_len(&self) -> Option<u64> {
        Some(self.total)
    }

    fn expect(&mut self, end: u64) {
        *self.expected = end;
    }
}

impl HeaderRounds {
    /// A header of an object `total` bytes long, nothing fetched yet; the first range asked for
    /// is `first_chunk` bytes (or the whole object when smaller). `options` decide whether the
    /// file opens when it breaks a rule that leaves it readable (as [`Gguf::from_bytes_with`]).
    pub fn new(total: u64, first_chunk: u64, options: &ReadOptions) -> Self {
        HeaderRounds {
            total,
            bytes: Vec::new(),
            first_chunk: first_chunk.max(4),
            expected: 0,
            mode: if options.permissive {
                Mode::Permissive
            } else {
                Mode::Strict
            },
        }
    }

    /// The object's length.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The bytes held, from the object's first byte.
    pub fn held(&self) -> &[u8] {
        &self.bytes
    }

    /// The range to fetch next (it starts where the bytes held end), or `None` when the bytes
    /// held are all the parser and the verdicts need.
    pub fn next_range(&mut self) -> Option<Range<u64>> {
        let have = self.bytes.len() as u64;
        let mut expected = self.expected;
        let mut src = RoundSource {
            bytes: &self.bytes,
            total: self.total,
            wanted: None,
            expected: &mut expected,
        };
        // the verdicts read the parse of the permissive mode, so a file that does not open
        // still has a report; the strict mode stops at the first error, which the permissive
        // parse also reaches first
        let (parsed, _) = parser::parse(&mut src, Mode::Permissive);
        let wanted = src.wanted;
        self.expected = expected;
        let need = match (&parsed, wanted) {
            (Err(Stop::Io(e)), Some(end)) if e.kind() == io::ErrorKind::WouldBlock => Some(end),
            (Ok(h), _) => verdict_bytes_end(h, self.total).filter(|&end| end > have),
            _ => None,
        };
        need.map(|end| {
            let to = next_fetch_end(have, end, self.first_chunk, self.expected, self.total);
            have..to.max(end)
        })
    }

    /// Appends fetched bytes (those of the range [`HeaderRounds::next_range`] named, or any
    /// that follow the bytes held).
    pub fn push(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// Both verdicts, as `gguf validate` gives them for a file of this length (a header the
    /// rounds have not finished reading is reported incomplete).
    pub fn report(&self) -> Report {
        let (r, found) = self.parse(Mode::Permissive);
        verdicts(r, found, &self.bytes, self.total)
    }

    /// The file, with the spec's rules or permissively as the options said: an error at the
    /// first violation that stops it opening. Tensor data is not held.
    pub fn gguf(self) -> Result<Gguf<'static>> {
        let (r, found) = self.parse(self.mode);
        let header = r?;
        Gguf::from_remote_parts(self.bytes, self.total, header, found, self.mode)
    }

    /// The one parse of the bytes held (a byte asked for beyond them is an I/O error).
    fn parse(&self, mode: Mode) -> (std::result::Result<Header, Stop>, Findings) {
        let mut src = PrefixSource {
            bytes: &self.bytes,
            total: self.total,
        };
        parser::parse(&mut src, mode)
    }

    /// The outline of what was read (for a file too broken to open).
    pub fn outline(&self) -> Outline<'_> {
        outline_sized(&self.bytes, self.total)
    }

    /// The byte layout of the header, every field's offset, length and value, the tensor data
    /// fields from the header's offsets and the object's length.
    pub fn layout(&self) -> ByteLayout<'_> {
        ByteLayout::of_prefix(&self.bytes, self.total)
    }
}
