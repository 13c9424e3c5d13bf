//! The one parser of the format, front to back, over any [`Source`]: one function per structure
//! of the spec, each checking its fields with the rules of `crate::rules`.
//!
//! It produces a compact [`Header`] index (positions, not copies) and a list of diagnostics. What
//! it does with a broken rule depends on [`Mode`]: stop at the first error (opening a file), go on
//! past the rules that leave the structure readable (permissive opening, validation).
//!
//! The parts: [`cursor`] (bounded reads and what a cut reads like), [`preamble`] (magic, version
//! and byte order, counts), [`values`] (key-value pairs, arrays, nesting), [`tensor_infos`],
//! [`names`] (the key and name indexes, duplicates), [`nul_names`] (ggml's NUL-cut duplicates),
//! and the two fast paths, [`fast_infos`] and [`fast_strings`], which [`Paths::FieldByField`]
//! turns off so that tests can prove them equal to the field-by-field reading.
#![forbid(unsafe_code)]

mod cursor;
mod fast_infos;
mod fast_strings;
mod guess;
mod names;
mod nul_names;
mod preamble;
mod tensor_infos;
mod values;

pub(crate) use super::index::Header;
use super::index::{KvList, TensorList};
use super::source::Source;
use super::text::CheckedText;
use crate::endian::Endian;
use crate::error::{Diagnostic, Error};
use crate::read::value_index::ValueIndex;
use crate::rules::{self, Report};
use cursor::Cursor;

/// Diagnostics kept per file; a mangled vocabulary can hold thousands of bad strings.
pub(crate) const MAX_DIAGNOSTICS: usize = 256;

/// What the parser does when a rule is broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The first error ends parsing (the default for opening files: the spec decides).
    Strict,
    /// Errors that leave the structure readable (bool bytes, UTF-8, empty or duplicate keys and
    /// names, over-long names, missing tensor data) are recorded and parsing goes on.
    Permissive,
}

/// Which code reads the common cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paths {
    /// Runs of plain tensor infos and of string-array elements are read by the fast paths.
    Fast,
    /// Everything is read field by field: the reference the fast paths must equal.
    FieldByField,
}

/// What parsing found besides the header: errors (the spec) and warnings (ggml, trailing bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Findings {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    pub dropped: usize,
}

impl Findings {
    /// The report of what was found, with `stop`, the error parsing stopped at, last.
    pub(crate) fn into_report(self, stop: Option<Diagnostic>) -> Report {
        let mut errors = self.errors;
        errors.extend(stop);
        Report {
            errors,
            warnings: self.warnings,
            omitted: self.dropped,
            incomplete: None,
        }
    }

    /// The report of a check that stopped early without a broken rule: bytes in memory never
    /// fail to read, so that is the reader's limit on counts (see [`Report::incomplete`]).
    pub(crate) fn into_incomplete(self, why: std::io::Error) -> Report {
        Report {
            incomplete: Some(why.to_string()),
            ..self.into_report(None)
        }
    }

    fn push(list: &mut Vec<Diagnostic>, dropped: &mut usize, d: Diagnostic) {
        if list.len() < MAX_DIAGNOSTICS {
            list.push(d);
        } else {
            *dropped += 1;
        }
    }
}

/// Why parsing stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A rule was broken in a way that ends parsing (or any error, in strict mode).
    Rule(Diagnostic),
    /// The source could not be read, or the header is beyond what this reader indexes.
    Io(std::io::Error),
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

impl From<Stop> for Error {
    fn from(s: Stop) -> Self {
        match s {
            Stop::Rule(d) => Error::Format(d),
            Stop::Io(e) => Error::io("reading the header", e),
        }
    }
}

type PResult<T> = Result<T, Stop>;

/// How far a parse that stopped had got: its byte order, the key-value pairs and tensor infos it
/// had read completely, and where their nested arrays end (empty after a successful parse: they
/// are in the [`Header`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Reached {
    pub endian: Endian,
    pub kvs: KvList,
    pub tensors: TensorList,
    pub value_index: ValueIndex,
}

/// Parses a header. On success the header and the findings (errors only in permissive mode); on
/// failure the stop reason and the findings gathered before it.
pub(crate) fn parse<S: Source>(src: &mut S, mode: Mode) -> (Result<Header, Stop>, Findings) {
    let (r, found, _) = parse_reaching(src, mode, Paths::Fast);
    (r, found)
}

/// [`parse`], also giving back what was read before a stop, for tools that map broken files.
/// A stop at a rule says so when the file looks like a GGUF whose line endings a text tool
/// converted (`read/line_endings.rs`).
pub(crate) fn parse_reaching<S: Source>(
    src: &mut S,
    mode: Mode,
    paths: Paths,
) -> (Result<Header, Stop>, Findings, Reached) {
    let (mut r, mut found, reached) = parse_plain(&mut *src, mode, paths);
    // a header that parsed is judged on its own bytes, which every source holds alike (a stream
    // stops at the data; a slice goes on into it)
    let bytes = match &r {
        Ok(h) => &src.bytes()[..src.bytes().len().min(h.data_offset as usize)],
        Err(_) => src.bytes(),
    };
    let first = match (found.errors.first_mut(), &mut r) {
        (Some(d), _) => Some(d),
        (None, Err(Stop::Rule(d))) => Some(d),
        _ => None,
    };
    if let Some(d) = first {
        crate::read::line_endings::explain(bytes, d);
    }
    (r, found, reached)
}

/// [`parse_reaching`] without a second look at a stop.
pub(crate) fn parse_plain<S: Source>(
    src: &mut S,
    mode: Mode,
    paths: Paths,
) -> (Result<Header, Stop>, Findings, Reached) {
    let mut p = Parser {
        cur: Cursor::new(src),
        mode,
        paths,
        found: Findings::default(),
        stack: Vec::new(),
        open: Vec::new(),
        value_index: ValueIndex::default(),
        saw_nul: false,
        bad_text: false,
        spare_lens: Vec::new(),
        key: (0, 0),
    };
    let mut reached = Reached::default();
    let r = p.header(&mut reached.kvs, &mut reached.tensors);
    reached.endian = p.cur.endian;
    reached.value_index = std::mem::take(&mut p.value_index);
    (r, p.found, reached)
}

struct Parser<'s, S: Source> {
    cur: Cursor<'s, S>,
    mode: Mode,
    paths: Paths,
    found: Findings,
    /// Frames of nested arrays being walked.
    stack: Vec<values::Frame>,
    /// Slots in `nested` of the recorded arrays still open, innermost last.
    open: Vec<u32>,
    value_index: ValueIndex,
    /// Set when a key or tensor name holds a NUL byte: ggml compares them only up to it.
    saw_nul: bool,
    /// Set when a string is not UTF-8 (a permissive parse goes on): the header's strings are then
    /// checked again as they are read.
    bad_text: bool,
    /// The lengths the second chain of the string scan found, until they are known to be right.
    spare_lens: Vec<u8>,
    /// The position and length of the key of the pair being read, to name it in messages.
    key: (u64, u64),
}

impl<S: Source> Parser<'_, S> {
    /// The header, one structure after the other as the spec lays them out. `kvs` and `tensors`
    /// collect the entries as they are read, so that a caller still has them when parsing stops.
    fn header(&mut self, kvs: &mut KvList, tensors: &mut TensorList) -> PResult<Header> {
        self.magic()?;
        let version = self.version()?;
        let counts = self.counts()?;
        let keys = self.key_value_pairs(counts.kvs, kvs)?;
        let infos = self.tensor_infos(counts.tensors, keys.alignment, tensors)?;
        let data_offset = self.data_padding(counts.tensors, keys.alignment)?;
        let data_len = self.last_extent(&infos, data_offset, tensors)?;
        let file_size = data_offset
            .checked_add(data_len)
            .ok_or_else(|| Stop::Rule(rules::truncated_beyond_u64(data_offset)))?;
        if self.saw_nul {
            self.ggml_nul_duplicates(kvs, tensors);
        }
        // every string was checked on the way here; a permissive parse may have let a bad one by
        if !self.bad_text {
            self.value_index.text = Some(CheckedText::every_string_checked());
        }
        Ok(Header {
            endian: self.cur.endian,
            version,
            kvs: std::mem::take(kvs),
            key_index: keys.index,
            tensors: std::mem::take(tensors),
            name_index: infos.name_index,
            value_index: std::mem::take(&mut self.value_index),
            hasher: keys.hasher,
            alignment: keys.alignment,
            data_offset,
            file_size,
        })
    }

    /// Records a broken rule whose structure is still readable: stops in strict mode.
    fn soft(&mut self, d: Diagnostic) -> PResult<()> {
        match self.mode {
            Mode::Strict => Err(Stop::Rule(d)),
            Mode::Permissive => {
                Findings::push(&mut self.found.errors, &mut self.found.dropped, d);
                Ok(())
            }
        }
    }

    fn warn(&mut self, d: Diagnostic) {
        Findings::push(&mut self.found.warnings, &mut self.found.dropped, d);
    }

    /// Checks that the string `[start, start + len)` (`what`) is UTF-8: `value.utf8` otherwise.
    #[inline]
    fn check_utf8(&mut self, start: u64, len: u64, what: &dyn Fn(&[u8]) -> String) -> PResult<()> {
        let bytes = self.cur.slice(start, len);
        if rules::utf8(bytes) {
            return Ok(());
        }
        let d = rules::value_utf8_violation(start, bytes, &what(self.cur.bytes()));
        self.bad_text = true;
        self.soft(d)
    }
}
