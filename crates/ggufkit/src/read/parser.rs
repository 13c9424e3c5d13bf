//! The one parser of the format: every rule of the spec and the CLI contract, front to back, with
//! exact arithmetic, over any [`Source`].
//!
//! It produces a compact [`Header`] index (positions, not copies) and a list of diagnostics. What
//! it does with a broken rule depends on [`Mode`]: stop at the first error (opening a file), go on
//! past the rules that leave the structure readable (permissive opening, validation).
#![forbid(unsafe_code)]

use hashbrown::HashTable;

use super::name_table::{not_plain, NameSeed, NameTable};
use super::source::Source;
use super::text::CheckedText;
use crate::endian::Endian;
use crate::error::{Diagnostic, Error, Rule};
use crate::types::GgmlType;
use crate::value::{ValueIndex, ValueType};

/// Bytes of the smallest possible key-value pair: key length, empty key, type, one-byte value.
const MIN_KV: u64 = 13;
/// Bytes of the smallest possible tensor info: name length, empty name, dim count, type, offset.
const MIN_TENSOR_INFO: u64 = 24;
/// Spec: tensor names are shorter than 64 bytes.
const MAX_NAME: u64 = 64;
/// Spec: at most 4 dimensions.
const MAX_DIMS: u32 = 4;
/// Alignment when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u32 = 32;
/// Diagnostics kept per file; a mangled vocabulary can hold thousands of bad strings.
const MAX_DIAGNOSTICS: usize = 256;

/// What the parser does when a rule is broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The first error ends parsing (the default for opening files: the spec decides).
    Strict,
    /// Errors that leave the structure readable (bool bytes, UTF-8, empty or duplicate keys and
    /// names, over-long names, missing tensor data) are recorded and parsing goes on.
    Permissive,
}

/// One key-value pair: where it starts and ends in the header.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KvEntry {
    pub start: u64,
    pub end: u64,
}

/// Positions in the header, 4 bytes each while they fit (every header below 4 GiB), 8 after: the
/// index of a header of minimal key-value pairs stays well under the header's own size.
#[derive(Clone, Debug, Default)]
pub(crate) struct Positions {
    low: Vec<u32>,
    high: Vec<u64>,
}

impl Positions {
    fn reserve(&mut self, n: usize) {
        self.low.reserve(n);
    }

    #[inline(always)]
    fn push(&mut self, p: u64) {
        match u32::try_from(p) {
            Ok(v) if self.high.is_empty() => self.low.push(v),
            _ => self.high.push(p),
        }
    }

    /// Appends positions in increasing order (a batch of tensor infos).
    #[inline]
    fn extend(&mut self, ps: &[u64]) {
        match ps.last() {
            Some(&last) if last <= u64::from(u32::MAX) && self.high.is_empty() => {
                self.low.extend(ps.iter().map(|&p| p as u32));
            }
            _ => ps.iter().for_each(|&p| self.push(p)),
        }
    }

    fn len(&self) -> usize {
        self.low.len() + self.high.len()
    }

    #[inline]
    fn get(&self, i: usize) -> Option<u64> {
        match self.low.get(i) {
            Some(&v) => Some(u64::from(v)),
            None => self.high.get(i - self.low.len()).copied(),
        }
    }
}

/// The key-value pairs in file order: where each starts. A pair ends where the next one starts,
/// the last one at `end`, so a pair costs one position.
#[derive(Clone, Debug, Default)]
pub(crate) struct KvList {
    starts: Positions,
    end: u64,
}

impl KvList {
    fn push(&mut self, e: KvEntry) {
        self.starts.push(e.start);
        self.end = e.end;
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<KvEntry> {
        let start = self.starts.get(i)?;
        let end = match self.starts.get(i + 1) {
            Some(next) => next,
            None => self.end,
        };
        Some(KvEntry { start, end })
    }

    /// The entry of a pair known to exist (an index from the key table).
    #[inline]
    fn at(&self, i: u32) -> KvEntry {
        self.get(i as usize).unwrap_or(KvEntry { start: 0, end: 0 })
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = KvEntry> + '_ {
        (0..self.len()).map(move |i| self.at(i as u32))
    }
}

/// The tensor infos in file order: where each starts. Everything else (name, shape, type, offset,
/// size) is read back from the checked bytes when asked: a tensor costs one position, 4 bytes
/// in a header below 4 GiB, so opening a model writes little besides the name index.
#[derive(Clone, Debug, Default)]
pub(crate) struct TensorList {
    starts: Positions,
}

impl TensorList {
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.len() == 0
    }

    /// Where tensor info `i` starts.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        self.starts.get(i)
    }

    /// The start of a tensor info known to exist (an index from the name table).
    #[inline]
    pub fn at(&self, i: u32) -> u64 {
        self.get(i as usize).unwrap_or(0)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(move |i| self.at(i as u32))
    }
}

/// The fields of a tensor info the parser checked, read back from the header.
pub(crate) struct InfoFields<'a> {
    pub name: &'a [u8],
    pub n_dims: u32,
    /// Missing dimensions are 1.
    pub dims: [u64; 4],
    pub type_id: u32,
    pub offset: u64,
}

/// The fields of the tensor info at `start`, which the parser checked: the info is wholly in
/// `src` and its fields are in range (anything read from elsewhere comes back as zeros, not as
/// a panic).
#[inline]
pub(crate) fn info_fields(src: &[u8], e: Endian, start: u64) -> InfoFields<'_> {
    match e {
        Endian::Little => info_fields_in::<false>(src, start),
        Endian::Big => info_fields_in::<true>(src, start),
    }
}

#[inline(always)]
fn info_fields_in<const BIG: bool>(src: &[u8], start: u64) -> InfoFields<'_> {
    let at = |p: usize| src.get(p..).unwrap_or(&[]);
    let s = start as usize;
    let name_len = rd64::<BIG>(at(s)) as usize;
    let name_end = s.saturating_add(8).saturating_add(name_len);
    let name = src.get(s.saturating_add(8)..name_end).unwrap_or(&[]);
    // the fixed fields as one array when the header goes on that far (all infos but the last of
    // a file that ends with them), else read one by one
    let (n_dims, dims, rest) = match at(name_end).first_chunk::<INFO_TAIL>() {
        Some(tail) => {
            let n_dims = (rd32::<BIG>(tail) as usize).min(MAX_DIMS as usize);
            let mut dims = [1u64; 4];
            for (d, dim) in dims.iter_mut().enumerate() {
                if d < n_dims {
                    *dim = rd64::<BIG>(&tail[4 + 8 * d..]);
                }
            }
            (n_dims, dims, &tail[4 + 8 * n_dims..])
        }
        None => {
            let fields = at(name_end);
            let n_dims = (rd32::<BIG>(fields) as usize).min(MAX_DIMS as usize);
            let field = |p: usize| fields.get(p..).unwrap_or(&[]);
            let mut dims = [1u64; 4];
            for (d, dim) in dims.iter_mut().enumerate().take(n_dims) {
                *dim = rd64::<BIG>(field(4 + 8 * d));
            }
            (n_dims, dims, field(4 + 8 * n_dims))
        }
    };
    InfoFields {
        name,
        n_dims: n_dims as u32,
        dims,
        type_id: rd32::<BIG>(rest),
        offset: rest.get(4..).map_or(0, rd64::<BIG>),
    }
}

/// The data offset (relative to the data section) and size of the tensor whose info starts at
/// `start`, read back from bytes the parser checked.
pub(crate) fn tensor_extent(src: &[u8], e: Endian, start: u64) -> (u64, u64) {
    let f = info_fields(src, e, start);
    let size = element_count(&f.dims)
        .and_then(|n| GgmlType::from_id(f.type_id)?.bytes_for(n))
        .unwrap_or(0);
    (f.offset, size)
}

/// The parsed shape of a header: positions into the bytes plus the computed layout.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    pub endian: Endian,
    pub version: u32,
    pub kvs: KvList,
    /// Indices into `kvs` and `tensors`: 4 bytes a slot (counts beyond 2^32 are refused).
    pub key_index: HashTable<u32>,
    pub tensors: TensorList,
    /// Tensor indices, each with the high half of its name's hash: a probe compares those before
    /// reading a name from the header (a random read per false match at 100,000 names).
    pub name_index: NameTable,
    /// What the parser learnt about arrays: nested array ends, text arrays.
    pub value_index: ValueIndex,
    /// The hasher the key index was built with (seeded per instance; the name index has its own).
    pub hasher: hashbrown::DefaultHashBuilder,
    pub alignment: u32,
    /// Where the tensor data starts (after the padding that follows the tensor infos).
    pub data_offset: u64,
    /// The spec's `len_file`: data start plus the last tensor's padded end.
    pub file_size: u64,
}

/// What parsing found besides the header: errors (the spec) and warnings (ggml, trailing bytes).
#[derive(Clone, Debug, Default)]
pub(crate) struct Findings {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    pub dropped: usize,
}

impl Findings {
    fn push(list: &mut Vec<Diagnostic>, dropped: &mut usize, d: Diagnostic) {
        if list.len() < MAX_DIAGNOSTICS {
            list.push(d);
        } else {
            *dropped += 1;
        }
    }
}

/// Why parsing stopped early.
pub(crate) enum Stop {
    /// A rule was broken in a way that ends parsing (or any error, in strict mode).
    Rule(Diagnostic),
    /// The source could not be read.
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

fn diag(rule: Rule, offset: u64, message: String) -> Diagnostic {
    Diagnostic {
        rule,
        offset,
        message,
    }
}

/// Shows a name or key in a message: lossy UTF-8, cut to a readable length.
pub(crate) fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s.into_owned()
    }
}

struct Parser<'s, S: Source> {
    src: &'s mut S,
    pos: u64,
    endian: Endian,
    mode: Mode,
    found: Findings,
    /// Frames of nested arrays being walked.
    stack: Vec<Frame>,
    /// Slots in `nested` of the recorded arrays still open, innermost last.
    open: Vec<u32>,
    value_index: ValueIndex,
    /// Set when a key or tensor name holds a NUL byte: ggml compares them only up to it.
    saw_nul: bool,
    /// Set when a string is not UTF-8 (a permissive parse goes on): the header's strings are then
    /// checked again as they are read.
    bad_text: bool,
    /// The lengths the second chain of [`scan_pair`] found, until they are known to be right.
    spare_lens: Vec<u8>,
}

/// Parses a header. On success the header and the findings (errors only in permissive mode); on
/// failure the stop reason and the findings gathered before it.
pub(crate) fn parse<S: Source>(src: &mut S, mode: Mode) -> (Result<Header, Stop>, Findings) {
    let (r, found, _) = parse_reaching(src, mode);
    (r, found)
}

/// How far a parse that stopped had got: its byte order and the key-value pairs and tensor infos
/// it had read completely (empty after a successful parse: they are in the [`Header`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Reached {
    pub endian: Endian,
    pub kvs: KvList,
    pub tensors: TensorList,
}

/// [`parse`], also giving back what was read before a stop, for tools that map broken files.
pub(crate) fn parse_reaching<S: Source>(
    src: &mut S,
    mode: Mode,
) -> (Result<Header, Stop>, Findings, Reached) {
    let mut p = Parser {
        src,
        pos: 0,
        endian: Endian::Little,
        mode,
        found: Findings::default(),
        stack: Vec::new(),
        open: Vec::new(),
        value_index: ValueIndex::default(),
        saw_nul: false,
        bad_text: false,
        spare_lens: Vec::new(),
    };
    let mut reached = Reached::default();
    let r = p.header(&mut reached.kvs, &mut reached.tensors);
    reached.endian = p.endian;
    (r, p.found, reached)
}

impl<S: Source> Parser<'_, S> {
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

    /// Bytes remaining after `from`, when the total is known.
    fn remaining_after(&self, from: u64) -> Option<u64> {
        self.src.total_len().map(|t| t.saturating_sub(from))
    }

    /// The file's length when known (slices, remote objects), else the bytes that arrived.
    fn file_len(&self) -> u64 {
        self.src
            .total_len()
            .unwrap_or(self.src.bytes().len() as u64)
    }

    /// Ensures `n` bytes at the cursor, or stops with `truncated` at `field` (naming `what`).
    #[inline(always)]
    fn need(&mut self, n: u64, field: u64, what: &dyn Fn(&[u8]) -> String) -> PResult<()> {
        let end = self.pos.checked_add(n);
        match end {
            Some(end) if self.src.available(end)? => Ok(()),
            _ => {
                let have = self.file_len();
                Err(Stop::Rule(diag(
                    Rule::Truncated,
                    field,
                    format!(
                        "the file ends at byte {have}, inside {} (needs {n} bytes from byte {})",
                        what(self.src.bytes()),
                        self.pos
                    ),
                )))
            }
        }
    }

    /// Checks that `count` items of at least `min` bytes each fit after the cursor.
    fn need_count(
        &mut self,
        count: u64,
        min: u64,
        field: u64,
        what: &dyn Fn(&[u8]) -> String,
    ) -> PResult<()> {
        let bytes = count.checked_mul(min);
        let end = bytes.and_then(|b| self.pos.checked_add(b));
        let fits = match end {
            Some(end) => self.src.available(end)?,
            None => false,
        };
        if fits {
            return Ok(());
        }
        let left = self
            .remaining_after(self.pos)
            .unwrap_or(self.src.bytes().len() as u64 - self.pos.min(self.src.bytes().len() as u64));
        Err(Stop::Rule(diag(
            Rule::Truncated,
            field,
            format!(
                "{} declares {count} items of at least {min} bytes each, but only {left} bytes remain",
                what(self.src.bytes())
            ),
        )))
    }

    #[inline(always)]
    fn u32_at(&self, pos: u64) -> u32 {
        let p = pos as usize;
        self.endian
            .u32(self.src.bytes()[p..p + 4].try_into().expect("4 bytes"))
    }

    #[inline(always)]
    fn u64_at(&self, pos: u64) -> u64 {
        let p = pos as usize;
        self.endian
            .u64(self.src.bytes()[p..p + 8].try_into().expect("8 bytes"))
    }

    #[inline(always)]
    fn read_u32(&mut self, what: &dyn Fn(&[u8]) -> String) -> PResult<u32> {
        let at = self.pos;
        self.need(4, at, what)?;
        let v = self.u32_at(at);
        self.pos += 4;
        Ok(v)
    }

    #[inline(always)]
    fn read_u64(&mut self, what: &dyn Fn(&[u8]) -> String) -> PResult<u64> {
        let at = self.pos;
        self.need(8, at, what)?;
        let v = self.u64_at(at);
        self.pos += 8;
        Ok(v)
    }

    #[inline]
    fn slice(&self, start: u64, len: u64) -> &[u8] {
        &self.src.bytes()[start as usize..(start + len) as usize]
    }

    /// Reads a GGUF string (length, bytes) whose length field is at the cursor: `truncated` at the
    /// length field when the bytes are not there, `value.utf8` at the bytes when they are not text.
    /// Returns the position and length of the bytes.
    #[inline]
    fn string(&mut self, what: &dyn Fn(&[u8]) -> String) -> PResult<(u64, u64)> {
        let at = self.pos;
        let len = self.read_u64(what)?;
        self.need_string_bytes(at, len, what)?;
        let start = self.pos;
        self.pos += len;
        self.check_utf8(start, len, what)?;
        Ok((start, len))
    }

    #[inline]
    fn need_string_bytes(
        &mut self,
        at: u64,
        len: u64,
        what: &dyn Fn(&[u8]) -> String,
    ) -> PResult<()> {
        let end = self.pos.checked_add(len);
        let ok = match end {
            Some(end) => self.src.available(end)?,
            None => false,
        };
        if ok {
            return Ok(());
        }
        let left = self
            .remaining_after(self.pos)
            .unwrap_or((self.src.bytes().len() as u64).saturating_sub(self.pos));
        Err(Stop::Rule(diag(
            Rule::Truncated,
            at,
            format!(
                "{} has length {len}, but only {left} bytes remain in the file",
                what(self.src.bytes())
            ),
        )))
    }

    #[inline]
    fn check_utf8(&mut self, start: u64, len: u64, what: &dyn Fn(&[u8]) -> String) -> PResult<()> {
        let bytes = self.slice(start, len);
        if crate::value::utf8(bytes).is_some() {
            return Ok(());
        }
        if let Err(e) = std::str::from_utf8(bytes) {
            let bad = start + e.valid_up_to() as u64;
            let msg = format!(
                "{} is not valid UTF-8 (invalid byte 0x{:02x} at byte {bad}), expected UTF-8 text",
                what(self.src.bytes()),
                bytes[e.valid_up_to()]
            );
            self.bad_text = true;
            self.soft(diag(Rule::ValueUtf8, start, msg))?;
        }
        Ok(())
    }

    /// Checks a key or tensor name: UTF-8, and whether it holds a NUL byte (ggml compares names
    /// only up to one). Names are short and nearly always plain ASCII, checked a word at a time.
    #[inline(always)]
    fn check_name(&mut self, start: u64, len: u64, what: &dyn Fn(&[u8]) -> String) -> PResult<()> {
        if plain_ascii(self.slice(start, len)) {
            return Ok(());
        }
        self.check_name_slowly(start, len, what)
    }

    #[cold]
    fn check_name_slowly(
        &mut self,
        start: u64,
        len: u64,
        what: &dyn Fn(&[u8]) -> String,
    ) -> PResult<()> {
        if self.slice(start, len).contains(&0) {
            self.saw_nul = true;
        }
        self.check_utf8(start, len, what)
    }

    /// Reads the header; `kvs` and `tensors` collect the entries as they are read, so that a caller
    /// still has them when parsing stops.
    fn header(&mut self, kvs: &mut KvList, tensors: &mut TensorList) -> PResult<Header> {
        // magic
        let have = self.src.available(4)?;
        let head = self.src.bytes();
        let n = head.len().min(4);
        if head[..n] != b"GGUF"[..n] {
            return Err(Stop::Rule(diag(
                Rule::Magic,
                0,
                format!(
                    "the file starts with {:?}, expected the magic \"GGUF\"",
                    String::from_utf8_lossy(&head[..n])
                ),
            )));
        }
        if !have {
            return Err(Stop::Rule(diag(
                Rule::Truncated,
                0,
                format!("the file ends after {n} bytes, inside the magic \"GGUF\""),
            )));
        }
        self.pos = 4;

        // version, and with it the byte order
        self.need(4, 4, &|_: &[u8]| "the version".into())?;
        let raw: [u8; 4] = self.src.bytes()[4..8].try_into().expect("4 bytes");
        self.endian = Endian::detect(raw);
        let version = self.endian.u32(raw);
        if !(2..=3).contains(&version) {
            let why = if version == 1 {
                " (GGUF v1 used 32-bit counts and lengths and is no longer supported)"
            } else {
                ""
            };
            return Err(Stop::Rule(diag(
                Rule::Version,
                4,
                format!(
                    "version is {version} (read {}), expected 2 or 3{why}",
                    self.endian.name()
                ),
            )));
        }
        self.pos = 8;
        if self.endian == Endian::Big {
            self.warn(diag(
                Rule::GgmlEndian,
                4,
                "the file is big-endian: valid, but ggml reads only little-endian files".into(),
            ));
        }

        // counts
        let n_tensors = self.read_u64(&|_: &[u8]| "the tensor count".into())?;
        self.need_count(n_tensors, MIN_TENSOR_INFO, 8, &|_: &[u8]| {
            "the tensor count".into()
        })?;
        let n_kv = self.read_u64(&|_: &[u8]| "the key-value count".into())?;
        self.need_count(n_kv, MIN_KV, 16, &|_: &[u8]| "the key-value count".into())?;

        // Indices are 4 bytes: 2^32 pairs or tensors would take a header of 55 GB at least.
        for (count, what) in [(n_tensors, "tensor infos"), (n_kv, "key-value pairs")] {
            if count > u64::from(u32::MAX) {
                return Err(Stop::Io(std::io::Error::other(format!(
                    "the header declares {count} {what}, more than the 2^32-1 this reader indexes"
                ))));
            }
        }

        // key-value pairs
        // The counts were checked against the bytes, so sizing by them is bounded by the input.
        kvs.starts.reserve(n_kv as usize);
        let mut key_index: HashTable<u32> = HashTable::with_capacity(n_kv as usize);
        let hasher = hashbrown::DefaultHashBuilder::default();
        let mut alignment = DEFAULT_ALIGNMENT;
        for i in 0..n_kv {
            let start = self.pos;
            let (key_pos, key_len) = {
                let at = self.pos;
                let len =
                    self.read_u64(&|_: &[u8]| format!("the key length of key-value pair {i}"))?;
                if len == 0 {
                    self.soft(diag(
                        Rule::KeyEmpty,
                        at,
                        format!("key-value pair {i} has an empty key, expected a key of at least one byte"),
                    ))?;
                }
                self.need_string_bytes(at, len, &|_: &[u8]| {
                    format!("the key of key-value pair {i}")
                })?;
                let kp = self.pos;
                self.pos += len;
                self.check_name(kp, len, &|_: &[u8]| {
                    format!("the key of key-value pair {i}")
                })?;
                (kp, len)
            };
            let key = self.slice(key_pos, key_len);
            let hash = hash_bytes(&hasher, key);
            let kvs_ref = &*kvs;
            let src = self.src.bytes();
            let dup = key_index
                .find(hash, |&j: &u32| {
                    key_bytes(src, kvs_ref.at(j), self.endian) == key
                })
                .copied();
            if let Some(j) = dup {
                let msg = format!(
                    "key '{}' of key-value pair {i} already appeared in pair {j}, expected unique keys",
                    show(key)
                );
                self.soft(diag(Rule::KeyDuplicate, start, msg))?;
                // Permissive reading: the last occurrence wins, as the spec says for alignment.
                if let Some(slot) = key_index.find_mut(hash, |&j2| j2 == j) {
                    *slot = kvs.len() as u32;
                }
            } else {
                key_index.insert_unique(hash, kvs.len() as u32, |&j| {
                    hash_bytes(&hasher, key_bytes(self.src.bytes(), kvs.at(j), self.endian))
                });
            }
            let is_alignment = self.slice(key_pos, key_len) == b"general.alignment";

            let type_pos = self.pos;
            let raw_type =
                self.read_u32(&|_: &[u8]| format!("the value type of key-value pair {i}"))?;
            let Some(vt) = ValueType::from_id(raw_type) else {
                let key = show(self.slice(key_pos, key_len));
                return Err(Stop::Rule(diag(
                    Rule::ValueType,
                    type_pos,
                    format!(
                        "key '{key}' has value type {raw_type}, expected a type id from 0 to 12"
                    ),
                )));
            };
            let value_pos = self.pos;
            self.value(vt, i)?;
            if is_alignment {
                alignment = self.alignment_value(vt, value_pos)?;
            }
            kvs.push(KvEntry {
                start,
                end: self.pos,
            });
        }

        // tensor infos
        tensors.starts.reserve(n_tensors as usize);
        let mut name_index = NameTable::with_capacity(n_tensors as usize);
        // names of fast-path infos wait here to be entered a batch at a time (see `enter_names`)
        let mut batch = NameBatch::new();
        let mut expected_offset: u64 = 0;
        let align = u64::from(alignment);
        let mut i = 0;
        while i < n_tensors {
            // the common case, a run of infos decoded behind two bounds checks each: short plain
            // names and fields that break no rule; anything else goes field by field below, to
            // be reported exactly
            let (b, left, seed) = (self.src.bytes(), n_tensors - i, name_index.seed());
            let from = InfoRun {
                pos: self.pos,
                expected: expected_offset,
            };
            let run = match self.endian {
                Endian::Little => fast_infos::<false>(b, from, left, align, seed, &mut batch),
                Endian::Big => fast_infos::<true>(b, from, left, align, seed, &mut batch),
            };
            self.pos = run.pos;
            expected_offset = run.expected;
            i += batch.len as u64;
            batch.first = tensors.len() as u32;
            tensors.starts.extend(&batch.starts[..batch.len]);
            // the names before the next info go first: a repeat among them is reported before
            // anything wrong with it
            self.enter_names(&mut name_index, &batch, tensors)?;
            if i == n_tensors || batch.len == NAME_BATCH {
                continue;
            }
            let start = self.pos;
            // name: judged from its length field first
            let name_len = self.read_u64(&|_: &[u8]| format!("the name length of tensor {i}"))?;
            if name_len >= MAX_NAME {
                self.soft(diag(
                    Rule::TensorName,
                    start,
                    format!("tensor {i} has a name of {name_len} bytes, expected fewer than 64"),
                ))?;
            }
            self.need_string_bytes(start, name_len, &|_: &[u8]| {
                format!("the name of tensor {i}")
            })?;
            let name_pos = self.pos;
            self.pos += name_len;
            self.check_name(name_pos, name_len, &|_: &[u8]| {
                format!("the name of tensor {i}")
            })?;
            self.index_tensor_name(&mut name_index, tensors, i, start, name_len)?;
            let (np, nl) = (name_pos as usize, name_len as usize);
            let tname_in = move |s: &[u8]| show(&s[np..np + nl]);

            // dimensions
            let ndims_pos = self.pos;
            let n_dims = self
                .read_u32(&|s: &[u8]| format!("the dimension count of tensor '{}'", tname_in(s)))?;
            if n_dims > MAX_DIMS {
                return Err(Stop::Rule(diag(
                    Rule::TensorDims,
                    ndims_pos,
                    format!(
                        "tensor '{}' has {n_dims} dimensions, expected at most 4",
                        tname_in(self.src.bytes())
                    ),
                )));
            }
            let dims_pos = self.pos;
            // when every field through the offset is in memory (all but a cut file), they are
            // read without a check each; otherwise field by field, to name the one cut short
            let fields_end = self.pos + 8 * u64::from(n_dims) + 12;
            let in_memory =
                fields_end <= self.src.bytes().len() as u64 || self.src.available(fields_end)?;
            let mut dims = [1u64; 4];
            for (d, dim) in dims.iter_mut().enumerate().take(n_dims as usize) {
                let at = self.pos;
                let v = if in_memory {
                    self.pos += 8;
                    self.u64_at(at)
                } else {
                    self.read_u64(&|s: &[u8]| format!("dimension {d} of tensor '{}'", tname_in(s)))?
                } as i64;
                if v < 0 {
                    return Err(Stop::Rule(diag(
                        Rule::TensorDim,
                        at,
                        format!(
                            "tensor '{}' has dimension {d} = {v}, expected 0 or more",
                            tname_in(self.src.bytes())
                        ),
                    )));
                }
                *dim = v as u64;
            }
            let n_elements = element_count(&dims).ok_or_else(|| {
                Stop::Rule(diag(
                    Rule::TensorSize,
                    dims_pos,
                    format!(
                        "tensor '{}' has shape {:?}, whose element count does not fit in a signed 64-bit integer",
                        tname_in(self.src.bytes()),
                        &dims[..n_dims as usize]
                    ),
                ))
            })?;

            // type
            let type_pos = self.pos;
            let raw_type = if in_memory {
                self.pos += 4;
                self.u32_at(type_pos)
            } else {
                self.read_u32(&|s: &[u8]| format!("the type of tensor '{}'", tname_in(s)))?
            };
            let ty = match GgmlType::from_id(raw_type) {
                None => {
                    return Err(Stop::Rule(diag(
                        Rule::TensorType,
                        type_pos,
                        format!(
                            "tensor '{}' has type {raw_type}, expected a type id below 43",
                            tname_in(self.src.bytes())
                        ),
                    )))
                }
                Some(t) if t.is_removed() => {
                    return Err(Stop::Rule(diag(
                        Rule::TensorType,
                        type_pos,
                        format!(
                            "tensor '{}' has type {raw_type} ({}), which was {}; expected a type ggml still reads",
                            tname_in(self.src.bytes()),
                            t.name(),
                            t.removal_note().unwrap_or("removed")
                        ),
                    )))
                }
                Some(t) => t,
            };
            let ne0 = if n_dims > 0 { dims[0] } else { 1 };
            // block sizes are powers of two (a test of the type table says so): a mask, not a division
            if ne0 & (ty.block_size() - 1) != 0 {
                return Err(Stop::Rule(diag(
                    Rule::TensorBlock,
                    type_pos,
                    format!(
                        "tensor '{}' of type {} has {ne0} elements in its first dimension, expected a multiple of the block size {}",
                        tname_in(self.src.bytes()),
                        ty.name(),
                        ty.block_size()
                    ),
                )));
            }
            let size = ty
                .bytes_for(n_elements)
                .filter(|&s| s <= i64::MAX as u64)
                .ok_or_else(|| {
                    Stop::Rule(diag(
                        Rule::TensorSize,
                        dims_pos,
                        format!(
                            "tensor '{}' of type {} has {n_elements} elements, whose byte size does not fit in a signed 64-bit integer",
                            tname_in(self.src.bytes()),
                            ty.name()
                        ),
                    ))
                })?;

            // offset
            let offset_pos = self.pos;
            let offset = if in_memory {
                self.pos += 8;
                self.u64_at(offset_pos)
            } else {
                self.read_u64(&|s: &[u8]| format!("the data offset of tensor '{}'", tname_in(s)))?
            };
            if offset != expected_offset {
                return Err(Stop::Rule(diag(
                    Rule::TensorOffset,
                    offset_pos,
                    format!(
                        "tensor '{}' has offset {offset}, expected {expected_offset}",
                        tname_in(self.src.bytes())
                    ),
                )));
            }
            expected_offset = padded_end(offset, size, align).ok_or_else(|| {
                Stop::Rule(diag(
                    Rule::TensorSize,
                    offset_pos,
                    format!(
                        "tensor '{}' ends at offset {offset} + {size} bytes plus padding, which does not fit in an unsigned 64-bit integer",
                        tname_in(self.src.bytes())
                    ),
                ))
            })?;
            tensors.starts.push(start);
            i += 1;
        }

        // padding before the data, only when there are tensors
        if n_tensors != 0 {
            let pad = (align - self.pos % align) % align;
            let at = self.pos;
            self.need(pad, at, &|_: &[u8]| {
                "the padding before the tensor data".into()
            })?;
            self.pos += pad;
        }
        let data_offset = self.pos;
        let file_size = data_offset.checked_add(expected_offset).ok_or_else(|| {
            Stop::Rule(diag(
                Rule::Truncated,
                data_offset,
                "the tensor data ends beyond 2^64 bytes, past the end of any file".into(),
            ))
        })?;

        if self.saw_nul {
            self.ggml_nul_duplicates(kvs, tensors);
        }
        // every string was checked on the way here; a permissive parse may have let a bad one by
        if !self.bad_text {
            self.value_index.text = Some(CheckedText::every_string_checked());
        }

        Ok(Header {
            endian: self.endian,
            version,
            kvs: std::mem::take(kvs),
            key_index,
            tensors: std::mem::take(tensors),
            name_index,
            value_index: std::mem::take(&mut self.value_index),
            hasher,
            alignment,
            data_offset,
            file_size,
        })
    }

    /// Enters the names of a batch of fast-path infos in the index, in order, and reports each
    /// repeat. A batch at a time: each entry loads a random slot of the table, and a tight loop
    /// over many lets the processor wait for those loads together instead of one after the other
    /// (the table of 100,000 names is larger than the L2 cache).
    fn enter_names(
        &mut self,
        name_index: &mut NameTable,
        batch: &NameBatch,
        tensors: &TensorList,
    ) -> PResult<()> {
        let src = self.src.bytes();
        let e = self.endian;
        let seed = *name_index.seed();
        let mut repeats = Vec::new();
        let name = |k: u32| tensor_name(src, tensors.at(k), e);
        name_index.insert_run(
            &batch.hashes[..batch.len],
            batch.first,
            |i, j| name(j) == name(i),
            |j| seed.hash(name(j)),
            |i, j| repeats.push((i, j)),
        );
        for (i, j) in repeats {
            let start = tensors.at(i);
            let msg = format!(
                "tensor {i} is named '{}' like tensor {j}, expected unique tensor names",
                show(tensor_name(self.src.bytes(), start, e))
            );
            self.soft(diag(Rule::TensorDuplicate, start, msg))?;
        }
        Ok(())
    }

    /// Enters the name of tensor `i` (whose info starts at `start`) in the index, or reports it
    /// as a duplicate: one probe finds an equal name or claims the slot (the table was sized
    /// from the count).
    fn index_tensor_name(
        &mut self,
        name_index: &mut NameTable,
        tensors: &TensorList,
        i: u64,
        start: u64,
        name_len: u64,
    ) -> PResult<()> {
        let src = self.src.bytes();
        let endian = self.endian;
        let name = &src[start as usize + 8..(start + 8 + name_len) as usize];
        let seed = *name_index.seed();
        let hash = seed.hash(name);
        let name_of = |j: u32| tensor_name(src, tensors.at(j), endian);
        let rehash = |j: u32| seed.hash(name_of(j));
        let dup = name_index.insert(hash, tensors.len() as u32, |j| name_of(j) == name, rehash);
        if let Some(j) = dup {
            let msg = format!(
                "tensor {i} is named '{}' like tensor {j}, expected unique tensor names",
                show(name)
            );
            self.soft(diag(Rule::TensorDuplicate, start, msg))?;
        }
        Ok(())
    }

    /// Checks the value of `general.alignment`: a uint32, non-zero power of two.
    fn alignment_value(&mut self, vt: ValueType, value_pos: u64) -> PResult<u32> {
        if vt != ValueType::U32 {
            return Err(Stop::Rule(diag(
                Rule::Alignment,
                value_pos,
                format!("general.alignment has type {}, expected uint32", vt.name()),
            )));
        }
        let v = self.u32_at(value_pos);
        if v == 0 || !v.is_power_of_two() {
            return Err(Stop::Rule(diag(
                Rule::Alignment,
                value_pos,
                format!("general.alignment is {v}, expected a non-zero power of two"),
            )));
        }
        Ok(v)
    }

    /// Reads one value of type `vt` at the cursor; arrays (nested ones too) without recursion.
    fn value(&mut self, vt: ValueType, kv: u64) -> PResult<()> {
        match vt {
            ValueType::String => {
                self.string(&|_: &[u8]| format!("the string value of key-value pair {kv}"))?;
                Ok(())
            }
            ValueType::Array => self.array(kv),
            ValueType::Bool => {
                let at = self.pos;
                self.need(1, at, &|_: &[u8]| {
                    format!("the bool value of key-value pair {kv}")
                })?;
                self.pos += 1;
                self.check_bools(at, 1, kv)
            }
            t => {
                let size = t.fixed_size().unwrap_or(0) as u64;
                let at = self.pos;
                self.need(size, at, &|_: &[u8]| {
                    format!("the {} value of key-value pair {kv}", t.name())
                })?;
                self.pos += size;
                Ok(())
            }
        }
    }

    fn check_bools(&mut self, at: u64, n: u64, kv: u64) -> PResult<()> {
        if let Some(k) = self.slice(at, n).iter().position(|&b| b > 1) {
            let b = self.slice(at, n)[k];
            let where_ = at + k as u64;
            self.soft(diag(
                Rule::ValueBool,
                where_,
                format!("a bool of key-value pair {kv} has byte value {b}, expected 0 or 1"),
            ))?;
        }
        Ok(())
    }

    /// Reads an array header at the cursor and pushes its frame. `before_last`: the array is an
    /// element of an array and more elements follow it; `inherited`: it is the last element of a
    /// recorded array (already popped), whose end is its end.
    fn array_header(
        &mut self,
        kv: u64,
        outermost: bool,
        before_last: bool,
        inherited: bool,
    ) -> PResult<()> {
        let type_pos = self.pos;
        let raw = self
            .read_u32(&|_: &[u8]| format!("the element type of an array in key-value pair {kv}"))?;
        let Some(elem) = ValueType::from_id(raw) else {
            return Err(Stop::Rule(diag(
                Rule::ValueType,
                type_pos,
                format!(
                    "an array in key-value pair {kv} has element type {raw}, expected a type id from 0 to 12"
                ),
            )));
        };
        if elem == ValueType::Array && outermost {
            self.warn(diag(
                Rule::GgmlNestedArray,
                type_pos,
                format!("key-value pair {kv} is an array of arrays: valid, but ggml rejects nested arrays"),
            ));
        }
        let count_pos = self.pos;
        let count = self.read_u64(&|_: &[u8]| {
            format!("the element count of an array in key-value pair {kv}")
        })?;
        self.need_count(count, elem.min_size(), count_pos, &|_: &[u8]| {
            format!("the {} array of key-value pair {kv}", elem.name())
        })?;
        if count > Frame::MAX_LEFT {
            return Err(Stop::Io(std::io::Error::other(format!(
                "an array in key-value pair {kv} has {count} elements, more than the 2^59-1 this reader walks"
            ))));
        }
        let mut recorded = inherited;
        if before_last && elem == ValueType::Array && count > 0 {
            if let Some(slot) = self.value_index.open(type_pos) {
                self.open.push(slot);
                recorded = true;
            }
        }
        self.stack.push(Frame::new(elem, count, recorded));
        Ok(())
    }

    /// Ends a frame: a recorded array ends here.
    fn close_frame(&mut self, f: Frame) {
        if f.recorded() {
            if let Some(slot) = self.open.pop() {
                self.value_index.close(slot, self.pos);
            }
        }
    }

    fn array(&mut self, kv: u64) -> PResult<()> {
        self.stack.clear();
        self.open.clear();
        self.array_header(kv, true, false, false)?;
        while let Some(top) = self.stack.last_mut() {
            let f = *top;
            let left = f.left();
            if left == 0 {
                self.stack.pop();
                self.close_frame(f);
                continue;
            }
            match f.elem() {
                ValueType::String => {
                    *top = f.with_left(0);
                    self.string_elements(left, kv)?;
                }
                ValueType::Array => {
                    let last = left == 1;
                    if last {
                        // the last element: this frame ends with it, so drop it now and keep
                        // the stack as short as the nesting that still has elements to come
                        // (its record, if any, passes to the element, which ends with it)
                        self.stack.pop();
                    } else {
                        *top = f.with_left(left - 1);
                    }
                    self.array_header(kv, false, !last, last && f.recorded())?;
                }
                t => {
                    *top = f.with_left(0);
                    // need_count already proved these bytes exist
                    let size = t.fixed_size().unwrap_or(1) as u64;
                    let n = left * size;
                    let at = self.pos;
                    self.need(n, at, &|_: &[u8]| {
                        format!("the {} array of key-value pair {kv}", t.name())
                    })?;
                    self.pos += n;
                    if t == ValueType::Bool {
                        self.check_bools(at, n, kv)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The hot loop of vocabulary files: `count` strings at the cursor.
    ///
    /// UTF-8 is checked per run of strings, not per string: when every byte of the length fields
    /// in a run is ASCII, the run (lengths included) is valid UTF-8 exactly when each string is,
    /// because an ASCII byte is always a character boundary. So one validation pass covers a whole
    /// vocabulary; a run that fails is re-checked string by string to name the bad one.
    fn string_elements(&mut self, count: u64, kv: u64) -> PResult<()> {
        let mut pos = self.pos;
        let mut run_start = pos;
        let mut run_first = 0u64;
        let mut k = 0u64;
        // the lengths of a large array are kept, a byte each, so that walking it later does not
        // chase them through the header
        let record = self.value_index.begin_strings(pos, count);
        while k < count {
            // the fast loop over the bytes in memory, until a length field that is not ASCII,
            // the end of what is in memory, the last string, or a stretch's worth of bytes
            let bytes = self.src.bytes();
            let lens = &mut self.value_index.lens;
            let limit = pos.saturating_add(STRETCH);
            let n = count - k;
            // two chains where a whole stretch of a long array is in memory (see `scan_pair`)
            let pair = record && n >= PAIR_MIN && limit <= bytes.len() as u64;
            let spare = &mut self.spare_lens;
            let (done, to) = match (self.endian, record) {
                (Endian::Little, true) if pair => {
                    scan_pair::<false>(bytes, pos, n, limit, lens, spare)
                }
                (Endian::Big, true) if pair => scan_pair::<true>(bytes, pos, n, limit, lens, spare),
                (Endian::Little, false) => scan::<false, false>(bytes, pos, n, limit, lens),
                (Endian::Little, true) => scan::<false, true>(bytes, pos, n, limit, lens),
                (Endian::Big, false) => scan::<true, false>(bytes, pos, n, limit, lens),
                (Endian::Big, true) => scan::<true, true>(bytes, pos, n, limit, lens),
            };
            k += done;
            pos = to;
            if k == count {
                break;
            }
            if pos >= limit {
                // check the stretch while it is in the cache, and go on with a new run
                self.check_run(run_start, pos, run_first, kv)?;
                run_start = pos;
                run_first = k;
                continue;
            }
            // one string the fast loop stopped at: more bytes to read, or a length that is not
            // ASCII (which ends the run: that string is checked alone)
            let at = pos;
            if !self.src.available(at.saturating_add(8))? {
                return Err(self.short_element(at, k, kv));
            }
            let len = self.u64_at(at);
            match (at + 8).checked_add(len) {
                Some(end) if self.src.available(end)? => pos = end,
                _ => return Err(self.short_element(at, k, kv)),
            }
            if record {
                self.value_index.lens.push(short_len(len));
            }
            let raw = &self.src.bytes()[at as usize..at as usize + 8];
            if raw.iter().any(|&b| b >= 0x80) {
                self.check_run(run_start, at, run_first, kv)?;
                self.check_utf8(at + 8, len, &|_: &[u8]| {
                    format!("string {k} of the array in key-value pair {kv}")
                })?;
                run_start = pos;
                run_first = k + 1;
            }
            k += 1;
        }
        self.check_run(run_start, pos, run_first, kv)?;
        self.pos = pos;
        Ok(())
    }

    /// Validates a run of strings `[start, end)` whose length fields are all ASCII; on failure
    /// finds and reports the first bad string.
    fn check_run(&mut self, start: u64, end: u64, first: u64, kv: u64) -> PResult<()> {
        if start >= end || simdutf8::basic::from_utf8(self.slice(start, end - start)).is_ok() {
            return Ok(());
        }
        let mut at = start;
        let mut k = first;
        while at < end {
            let len = self.u64_at(at);
            self.check_utf8(at + 8, len, &|_: &[u8]| {
                format!("string {k} of the array in key-value pair {kv}")
            })?;
            at += 8 + len;
            k += 1;
        }
        Ok(())
    }

    fn short_element(&self, at: u64, k: u64, kv: u64) -> Stop {
        let have = self.file_len();
        Stop::Rule(diag(
            Rule::Truncated,
            at,
            format!("the file ends at byte {have}, inside string {k} of the array in key-value pair {kv}"),
        ))
    }

    /// ggml compares keys and tensor names only up to a first NUL byte: names equal up to it are
    /// duplicates for ggml (a warning: the spec compares whole names).
    fn ggml_nul_duplicates(&mut self, kvs: &KvList, tensors: &TensorList) {
        let src = self.src.bytes();
        let e = self.endian;
        let keys = NameKind {
            rule: Rule::KeyDuplicate,
            what: "key",
            earlier: "the key of pair",
            plural: "keys",
        };
        let names = NameKind {
            rule: Rule::TensorDuplicate,
            what: "tensor name",
            earlier: "the name of tensor",
            plural: "names",
        };
        let found = &mut self.found;
        nul_duplicates(
            found,
            kvs.len(),
            |i| kvs.at(i).start,
            &keys,
            |i| key_bytes(src, kvs.at(i), e),
        );
        nul_duplicates(
            found,
            tensors.len(),
            |i| tensors.at(i),
            &names,
            |i| tensor_name(src, tensors.at(i), e),
        );
    }
}

/// How [`nul_duplicates`] names what it warns about.
struct NameKind {
    rule: Rule,
    what: &'static str,
    earlier: &'static str,
    plural: &'static str,
}

/// Warns, in file order, about each name that equals an earlier one up to a NUL byte but not in
/// full (naming the nearest such earlier one).
///
/// The names are sorted by their NUL-cut form (4 bytes of index each, no copies), so equal cut
/// names sit side by side; only the first warnings are formatted, picked with a bounded heap (a
/// hostile header can hold hundreds of thousands of such names).
fn nul_duplicates<'s>(
    found: &mut Findings,
    n: usize,
    offset: impl Fn(u32) -> u64,
    kind: &NameKind,
    name: impl Fn(u32) -> &'s [u8],
) {
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| cut(name(a)).cmp(cut(name(b))).then(a.cmp(&b)));
    let room = MAX_DIAGNOSTICS.saturating_sub(found.warnings.len());
    // the `room` pairs (i, j) of smallest i, as a max-heap on i
    let mut first: std::collections::BinaryHeap<(u32, u32)> = Default::default();
    for w in order.windows(2) {
        let (j, i) = (w[0], w[1]);
        let (nj, ni) = (name(j), name(i));
        if cut(nj) != cut(ni) || nj == ni {
            continue;
        }
        if first.len() < room {
            first.push((i, j));
        } else {
            found.dropped += 1;
            if first.peek().is_some_and(|&(top, _)| i < top) {
                first.pop();
                first.push((i, j));
            }
        }
    }
    drop(order);
    for (i, j) in first.into_sorted_vec() {
        let NameKind {
            rule,
            what,
            earlier,
            plural,
        } = kind;
        found.warnings.push(diag(
            *rule,
            offset(i),
            format!(
                "{what} '{}' equals {earlier} {j} up to a NUL byte, and ggml compares {plural} only up to it",
                show(name(i))
            ),
        ));
    }
}

/// Bytes of strings checked as UTF-8 at a time while they are in the cache.
const STRETCH: u64 = 256 * 1024;
/// Tensor names entered in the index at a time (see `enter_names`).
const NAME_BATCH: usize = 64;
/// Strings left in an array below which a second chain is not worth starting.
const PAIR_MIN: u64 = 1024;

/// A tensor info decoded by [`fast_tensor_info`].
struct FastInfo {
    /// The hash of the name (from the name table's seed).
    hash: u64,
    /// Where the info ends.
    end: usize,
    /// Where the next tensor's data must start (this one's padded end).
    next_offset: u64,
}

/// Bytes after a name that hold every fixed field an info can have: the dimension count, four
/// dimensions, the type and the offset.
const INFO_TAIL: usize = 4 + 8 * 4 + 4 + 8;

/// A `u64` from 8 bytes in the byte order `BIG` names (fixed at compile time, so no branch).
#[inline(always)]
fn u64_in<const BIG: bool>(raw: [u8; 8]) -> u64 {
    if BIG {
        u64::from_be_bytes(raw)
    } else {
        u64::from_le_bytes(raw)
    }
}

/// The `u64` in the first 8 bytes of `b`, which has them (0 otherwise).
#[inline(always)]
fn rd64<const BIG: bool>(b: &[u8]) -> u64 {
    u64_in::<BIG>(b.first_chunk::<8>().copied().unwrap_or([0; 8]))
}

/// The `u32` in the first 4 bytes of `b`, which has them (0 otherwise).
#[inline(always)]
fn rd32<const BIG: bool>(b: &[u8]) -> u32 {
    let raw = b.first_chunk::<4>().copied().unwrap_or([0; 4]);
    if BIG {
        u32::from_be_bytes(raw)
    } else {
        u32::from_le_bytes(raw)
    }
}

/// The tensor info at `start` when it breaks no rule and `b` holds it and [`INFO_TAIL`] bytes
/// after its name: a name shorter than 64 bytes, plain ASCII without NUL, at most 4 dimensions
/// none negative, an element count and byte size that fit, a type ggml reads whose block divides
/// the first dimension, and the offset `expected`. `None` otherwise: the parser then reads it
/// field by field to report what is wrong (or to read more of a stream). The same rules as
/// there, in one pass with two bounds checks (the name, and the fixed fields as one array).
#[inline(always)]
fn fast_tensor_info<const BIG: bool>(
    b: &[u8],
    start: usize,
    expected: u64,
    align: u64,
    seed: &NameSeed,
) -> Option<FastInfo> {
    let name_len = rd64::<BIG>(b.get(start..)?.first_chunk::<8>()?);
    if name_len >= MAX_NAME {
        return None;
    }
    let name_end = start + 8 + name_len as usize;
    let (hash, plain) = seed.scan(b.get(start + 8..name_end)?);
    if !plain {
        return None;
    }
    let tail: &[u8; INFO_TAIL] = b.get(name_end..)?.first_chunk()?;
    let n_dims = rd32::<BIG>(tail) as usize;
    if n_dims > MAX_DIMS as usize {
        return None;
    }
    let mut dims = [1u64; 4];
    for (d, dim) in dims.iter_mut().enumerate() {
        if d < n_dims {
            let v = rd64::<BIG>(&tail[4 + 8 * d..]);
            if (v as i64) < 0 {
                return None;
            }
            *dim = v;
        }
    }
    let n_elements = element_count(&dims)?;
    let rest = &tail[4 + 8 * n_dims..];
    let ty = GgmlType::from_id(rd32::<BIG>(rest)).filter(|t| !t.is_removed())?;
    if dims[0] & (ty.block_size() - 1) != 0 {
        return None;
    }
    let size = ty.bytes_for(n_elements).filter(|&s| s <= i64::MAX as u64)?;
    let offset = rd64::<BIG>(&rest[4..]);
    if offset != expected {
        return None;
    }
    Some(FastInfo {
        hash,
        end: name_end + 4 + 8 * n_dims + 12,
        next_offset: padded_end(offset, size, align)?,
    })
}

/// Fast-path tensor infos waiting to enter the name index: where each starts and its name's
/// hash, in file order, the first being tensor `first`.
struct NameBatch {
    starts: [u64; NAME_BATCH],
    hashes: [u64; NAME_BATCH],
    len: usize,
    first: u32,
}

impl NameBatch {
    fn new() -> NameBatch {
        NameBatch {
            starts: [0; NAME_BATCH],
            hashes: [0; NAME_BATCH],
            len: 0,
            first: 0,
        }
    }
}

/// Where a run of fast-path tensor infos ([`fast_infos`]) starts or stopped.
struct InfoRun {
    /// Where the next info starts.
    pos: u64,
    /// The offset the next info's data must have.
    expected: u64,
}

/// Takes tensor infos from `from` into `batch` (emptied first) while each is the common case of
/// [`fast_tensor_info`], at most `left` of them and no more than a batch holds. Its own loop
/// over local arrays, so that the position and offset stay in registers.
#[inline(always)]
fn fast_infos<const BIG: bool>(
    b: &[u8],
    from: InfoRun,
    left: u64,
    align: u64,
    seed: &NameSeed,
    batch: &mut NameBatch,
) -> InfoRun {
    let InfoRun { pos, mut expected } = from;
    let want = left.min(NAME_BATCH as u64) as usize;
    // a position past the address space is past the bytes: no fast info there
    let mut p = usize::try_from(pos).unwrap_or(usize::MAX);
    let mut taken = 0;
    while taken < want {
        let Some(f) = fast_tensor_info::<BIG>(b, p, expected, align, seed) else {
            break;
        };
        batch.starts[taken] = p as u64;
        batch.hashes[taken] = f.hash;
        p = f.end;
        expected = f.next_offset;
        taken += 1;
    }
    batch.len = taken;
    InfoRun {
        pos: if taken == 0 { pos } else { p as u64 },
        expected,
    }
}

/// A string length in a byte: 255 stands for 255 or more (read from the header when needed).
#[inline(always)]
fn short_len(len: u64) -> u8 {
    len.min(255) as u8
}

/// Steps over up to `n` strings from `pos`, stopping at `limit` or beyond, while each is wholly in
/// `bytes` and its length field is all ASCII; returns how many it stepped over and where it
/// stopped; with `RECORD`, pushes each length onto `lens` ([`short_len`]). The hot loop of
/// vocabularies: one load, one test and one add a string, the byte order fixed at compile time.
#[inline(always)]
fn scan<const BIG: bool, const RECORD: bool>(
    bytes: &[u8],
    mut pos: u64,
    n: u64,
    limit: u64,
    lens: &mut Vec<u8>,
) -> (u64, u64) {
    let have = bytes.len() as u64;
    let mut k = 0;
    while k < n && pos < limit {
        let Some(raw) = usize::try_from(pos)
            .ok()
            .and_then(|p| bytes.get(p..)?.first_chunk::<8>())
        else {
            break;
        };
        if u64::from_ne_bytes(*raw) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        let len = u64_in::<BIG>(*raw);
        // every byte below 0x80: len + 8 < 2^63
        match pos.checked_add(len + 8) {
            Some(end) if end <= have => pos = end,
            _ => break,
        }
        if RECORD {
            lens.push(short_len(len));
        }
        k += 1;
    }
    (k, pos)
}

/// [`scan`] of a recorded string array with two chains of loads instead of one.
///
/// Finding a string means reading the length of the one before: a chain of dependent loads, each
/// waiting for the last (about 1.5 ns a string, most of the time it takes to open a vocabulary).
/// So a second chain starts from a guessed string boundary halfway to `limit` and both step in
/// turn, the processor overlapping their loads. The guess is only kept when the first chain lands
/// on it exactly: a chain from a true boundary steps over exactly the strings the first chain
/// would have, so nothing but time depends on the guess being right. `spare` holds the second
/// chain's lengths until then. Returns what [`scan`] would (the same strings and lengths), except
/// that the stop at `limit` may come at a later boundary, at most a stretch further.
#[inline(always)]
fn scan_pair<const BIG: bool>(
    bytes: &[u8],
    pos: u64,
    n: u64,
    limit: u64,
    lens: &mut Vec<u8>,
    spare: &mut Vec<u8>,
) -> (u64, u64) {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let have = bytes.len() as u64;
    let word = |p: u64| -> Option<u64> {
        Some(u64_in::<BIG>(
            *bytes.get(usize::try_from(p).ok()?..)?.first_chunk::<8>()?,
        ))
    };
    let Some(guess) = guess_boundary::<BIG>(bytes, pos + (limit - pos) / 2) else {
        return scan::<BIG, true>(bytes, pos, n, limit, lens);
    };
    // both chains in turn while the first has not reached the guess, each pair of strings
    // keeping the total within the array's count
    let (mut a, mut b) = (pos, guess);
    let b_limit = guess.saturating_add(STRETCH);
    let mut pairs = 0u64;
    spare.clear();
    while a < guess && b < b_limit && pairs.saturating_mul(2) + 2 <= n {
        let (Some(la), Some(lb)) = (word(a), word(b)) else {
            break;
        };
        // a length field with a byte of 0x80 or more ends the run (see `scan`); it also
        // keeps both sums far from overflowing
        if (la | lb) & HIGH != 0 {
            break;
        }
        let (next_a, next_b) = (a + 8 + la, b + 8 + lb);
        if next_a > have || next_b > have {
            break;
        }
        lens.push(short_len(la));
        spare.push(short_len(lb));
        a = next_a;
        b = next_b;
        pairs += 1;
    }
    // the first chain alone the rest of the way to the guess
    let (more, at) = scan::<BIG, true>(bytes, a, n - 2 * pairs, guess, lens);
    let first = pairs + more;
    if at != guess {
        // the guess was not a boundary (or lies past the array): the first chain goes on alone
        let (rest, end) = scan::<BIG, true>(bytes, at, n - first, limit, lens);
        return (first + rest, end);
    }
    lens.extend_from_slice(spare);
    let done = first + pairs;
    let (rest, end) = scan::<BIG, true>(bytes, b, n - done, limit, lens);
    (done + rest, end)
}

/// A likely string boundary at or after `from`: the first place where an 8-byte length field
/// holding less than 2^16 would start (six zero bytes where the high bytes go), which in text is
/// nearly always a real one. Searched for 4 KiB at most.
fn guess_boundary<const BIG: bool>(bytes: &[u8], from: u64) -> Option<u64> {
    let start = usize::try_from(from).ok()?;
    let window = bytes.get(start..start.checked_add(4096 + 16)?)?;
    let small = |i: usize| -> bool {
        u64_in::<BIG>(window[i..i + 8].try_into().unwrap_or([0xFF; 8])) < 1 << 16
    };
    let i = (0..4096).find(|&i| small(i))?;
    // little-endian: the zeros of a short length end just before its string, so the last place
    // of a run of candidates is the field; big-endian: they start it, so the first is
    let i = if BIG {
        i
    } else {
        (i..4096).find(|&j| !small(j + 1)).unwrap_or(i)
    };
    Some(from + i as u64)
}

/// A frame of the nested-array walk in 8 bytes (a megabyte of nesting keeps a frame per level):
/// the element type in the top 4 bits, whether the array's end is recorded in bit 59, and the
/// elements left below (counts were checked against the bytes, so they are far below 2^59).
#[derive(Clone, Copy, Debug)]
struct Frame(u64);

impl Frame {
    const MAX_LEFT: u64 = (1 << 59) - 1;
    const RECORDED: u64 = 1 << 59;

    fn new(elem: ValueType, left: u64, recorded: bool) -> Frame {
        let flag = if recorded { Self::RECORDED } else { 0 };
        Frame((u64::from(elem.id()) << 60) | flag | (left & Self::MAX_LEFT))
    }

    fn elem(self) -> ValueType {
        // the id was a valid one when the frame was made
        ValueType::from_id((self.0 >> 60) as u32).unwrap_or(ValueType::U8)
    }

    fn left(self) -> u64 {
        self.0 & Self::MAX_LEFT
    }

    fn recorded(self) -> bool {
        self.0 & Self::RECORDED != 0
    }

    fn with_left(self, left: u64) -> Frame {
        Frame((self.0 & !Self::MAX_LEFT) | (left & Self::MAX_LEFT))
    }
}

/// True when every byte is ASCII and none is NUL: eight bytes at a time, for short names.
#[inline(always)]
fn plain_ascii(b: &[u8]) -> bool {
    let mut bad = 0u64;
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        bad |= not_plain(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
    }
    if !tail.is_empty() {
        if let Some(last) = b.last_chunk::<8>() {
            // the last eight bytes, overlapping the words already seen
            bad |= not_plain(u64::from_le_bytes(*last));
        } else {
            for &c in tail {
                bad |= u64::from(c >= 0x80 || c == 0);
            }
        }
    }
    bad == 0
}

/// A name up to its first NUL byte, as ggml compares names.
fn cut(b: &[u8]) -> &[u8] {
    b.split(|&c| c == 0).next().unwrap_or(b)
}

/// The hash of a key or name in the indexes: its bytes alone, without the length prefix of
/// `Hash for [u8]` (the tables compare whole names, so only speed depends on the hash).
#[inline]
pub(crate) fn hash_bytes(h: &hashbrown::DefaultHashBuilder, b: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut state = h.build_hasher();
    state.write(b);
    state.finish()
}

/// The key bytes of a parsed key-value pair.
#[inline]
pub(crate) fn key_bytes(src: &[u8], kv: KvEntry, e: Endian) -> &[u8] {
    let p = kv.start as usize;
    let len = e.u64(src[p..p + 8].try_into().expect("8 bytes")) as usize;
    &src[p + 8..p + 8 + len]
}

/// The name bytes of a parsed tensor info.
#[inline]
pub(crate) fn tensor_name(src: &[u8], start: u64, e: Endian) -> &[u8] {
    let p = start as usize;
    let len = e.u64(src[p..p + 8].try_into().expect("8 bytes")) as usize;
    &src[p + 8..p + 8 + len]
}

/// Exact element count of a shape: 0 when a dimension is 0, `None` beyond `i64::MAX`.
#[inline(always)]
pub(crate) fn element_count(dims: &[u64; 4]) -> Option<u64> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= i64::MAX as u64)
}

/// `offset + size` rounded up to the alignment, exactly.
pub(crate) fn padded_end(offset: u64, size: u64, align: u64) -> Option<u64> {
    // alignments are powers of two (checked when read), so a mask replaces the modulo
    debug_assert!(align.is_power_of_two());
    let pad = size.wrapping_neg() & (align - 1);
    offset.checked_add(size)?.checked_add(pad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::source::SliceSource;

    /// `scan_pair` steps over exactly what `scan` does, with the same lengths, wherever its guess
    /// lands: on a boundary, inside a string, inside a run of zeros that looks like a length
    /// field, past the array, or where no guess can be made; in both byte orders.
    #[test]
    fn scan_pair_agrees_with_scan() {
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for case in 0..48 {
            let big = case % 2 == 1;
            let mut bytes = Vec::new();
            let count = 2_000 + next() % 40_000;
            for i in 0..count {
                let r = next();
                let len = match (case / 2) % 6 {
                    // text: short tokens
                    0 => r % 24,
                    // strings full of zeros, like length fields
                    1 => r % 40,
                    // some lengths of 128 bytes or more (a high bit in the field)
                    2 if i % 300 == 0 => 128 + r % 300,
                    // empty strings among short ones
                    3 => [0, 0, 1, 2, 9][(r % 5) as usize],
                    // long strings: a stretch holds few of them
                    4 => r % 5_000,
                    _ => r % 64,
                };
                let field = if big {
                    len.to_be_bytes()
                } else {
                    len.to_le_bytes()
                };
                bytes.extend(field);
                let fill = if (case / 2) % 6 == 1 {
                    0
                } else {
                    b'a' + (r % 26) as u8
                };
                bytes.extend(std::iter::repeat_n(fill, len as usize));
            }
            // what follows the array: binary floats, or nothing
            if case % 3 != 0 {
                bytes.extend((0..100_000).map(|_| next() as u8));
            }
            for (pos, n, limit) in [
                (0, count, STRETCH),
                (0, count / 3, STRETCH),
                (0, count, STRETCH / 3),
                (17 * 8, count, STRETCH),
            ] {
                if pos > 0 && (case / 2) % 6 != 3 {
                    continue; // a start that may fall inside a string: tried on one kind of array
                }
                let (mut one, mut two, mut spare) = (Vec::new(), Vec::new(), Vec::new());
                // the second chain may carry the stop past `limit`, to a later boundary (never
                // further than a stretch beyond): scan to that one
                let b = if big {
                    scan_pair::<true>(&bytes, pos, n, limit, &mut two, &mut spare)
                } else {
                    scan_pair::<false>(&bytes, pos, n, limit, &mut two, &mut spare)
                };
                let to = limit.max(b.1);
                assert!(to < limit + 2 * STRETCH);
                let a = if big {
                    scan::<true, true>(&bytes, pos, n, to, &mut one)
                } else {
                    scan::<false, true>(&bytes, pos, n, to, &mut one)
                };
                assert_eq!(a, b, "case {case}, from {pos}, {n} strings, limit {limit}");
                assert_eq!(one, two, "case {case}: the lengths");
            }
        }
    }

    /// An array header (element type, count) in little-endian.
    fn arr(out: &mut Vec<u8>, elem: u32, n: u64) -> u64 {
        let at = out.len() as u64;
        out.extend(elem.to_le_bytes());
        out.extend(n.to_le_bytes());
        at
    }

    #[test]
    fn nested_array_ends_are_recorded_for_the_walk() {
        // a = [ b = [[1], [2]], e = [[3]], g = [] ]: b and e are arrays of arrays before the
        // last element of a, so their ends are recorded; the others are not
        let mut b = b"GGUF\x03\0\0\0".to_vec();
        b.extend(0u64.to_le_bytes());
        b.extend(1u64.to_le_bytes());
        b.extend(1u64.to_le_bytes());
        b.push(b'k');
        b.extend(9u32.to_le_bytes());
        arr(&mut b, 9, 3);
        let b_at = arr(&mut b, 9, 2);
        arr(&mut b, 0, 1);
        b.push(1);
        arr(&mut b, 0, 1);
        b.push(2);
        let b_end = b.len() as u64;
        let e_at = arr(&mut b, 9, 1);
        arr(&mut b, 0, 1);
        b.push(3);
        let e_end = b.len() as u64;
        arr(&mut b, 9, 0);
        let (h, _) = parse(&mut SliceSource(&b), Mode::Strict);
        let h = h.unwrap_or_else(|_| panic!("valid"));
        assert_eq!(h.value_index.end_of(b_at), Some(b_end));
        assert_eq!(h.value_index.end_of(e_at), Some(e_end));
        assert_eq!(
            h.value_index.end_of(b_at + 12),
            None,
            "a number array is not recorded"
        );
        assert!(h.value_index.heap_bytes() >= 16);
        assert_eq!(h.kvs.len(), 1);
        assert_eq!(h.kvs.get(0).map(|e| e.end), Some(b.len() as u64));
    }

    #[test]
    fn plain_ascii_is_ascii_without_nul() {
        let naive = |b: &[u8]| b.iter().all(|&c| c != 0 && c < 0x80);
        let mut seed = 1u64;
        for len in 0..40usize {
            for _ in 0..200 {
                let mut b: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        b'a' + ((seed >> 40) % 26) as u8
                    })
                    .collect();
                if len > 0 {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let at = (seed >> 33) as usize % len;
                    b[at] = [0u8, 0x7f, 0x80, 0xff, 0x01, b'z'][(seed >> 20) as usize % 6];
                }
                assert_eq!(plain_ascii(&b), naive(&b), "{b:?}");
            }
        }
    }
}
