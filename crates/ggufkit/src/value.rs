//! Metadata values: the 13 value types, borrowed values and zero-copy array views.
//!
//! Values borrow the header bytes; nothing is decoded until asked for. A 262k-token string array is
//! a [`ArrayView`] over its bytes whose [`ArrayView::strings`] iterator yields borrowed strings, and a
//! numeric array can be viewed as a `&[T]` when the file's byte order and the alignment allow.
#![forbid(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;

use crate::endian::Endian;
use crate::read::text::CheckedText;

/// The type of a metadata value, as the spec's `gguf_type` enum numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ValueType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl ValueType {
    /// All 13 types, in id order.
    pub const ALL: [ValueType; 13] = [
        ValueType::U8,
        ValueType::I8,
        ValueType::U16,
        ValueType::I16,
        ValueType::U32,
        ValueType::I32,
        ValueType::F32,
        ValueType::Bool,
        ValueType::String,
        ValueType::Array,
        ValueType::U64,
        ValueType::I64,
        ValueType::F64,
    ];

    /// The type with this id; `None` outside 0..=12.
    pub fn from_id(id: u32) -> Option<ValueType> {
        Self::ALL.get(id as usize).copied()
    }

    /// The id stored in files.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// The name the CLI contract uses (`uint8`, `float32`, `string`, `array`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::U8 => "uint8",
            ValueType::I8 => "int8",
            ValueType::U16 => "uint16",
            ValueType::I16 => "int16",
            ValueType::U32 => "uint32",
            ValueType::I32 => "int32",
            ValueType::F32 => "float32",
            ValueType::Bool => "bool",
            ValueType::String => "string",
            ValueType::Array => "array",
            ValueType::U64 => "uint64",
            ValueType::I64 => "int64",
            ValueType::F64 => "float64",
        }
    }

    /// The type with this contract name (also accepts the short forms `u8`, `i32`, `f32`, `str`).
    pub fn from_name(name: &str) -> Option<ValueType> {
        let n = name.to_ascii_lowercase();
        let alias = match n.as_str() {
            "u8" => "uint8",
            "i8" => "int8",
            "u16" => "uint16",
            "i16" => "int16",
            "u32" => "uint32",
            "i32" => "int32",
            "f32" => "float32",
            "u64" => "uint64",
            "i64" => "int64",
            "f64" => "float64",
            "str" => "string",
            other => other,
        };
        Self::ALL.into_iter().find(|t| t.name() == alias)
    }

    /// Encoded size of one value of this type, or `None` for strings and arrays.
    pub fn fixed_size(self) -> Option<usize> {
        Some(match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => 1,
            ValueType::U16 | ValueType::I16 => 2,
            ValueType::U32 | ValueType::I32 | ValueType::F32 => 4,
            ValueType::U64 | ValueType::I64 | ValueType::F64 => 8,
            ValueType::String | ValueType::Array => return None,
        })
    }

    /// The fewest bytes one value of this type can take: what a declared count is checked against.
    /// Strings take at least their 8-byte length, arrays their 4-byte type and 8-byte count.
    pub fn min_size(self) -> u64 {
        match self {
            ValueType::String => 8,
            ValueType::Array => 12,
            t => t.fixed_size().unwrap_or(1) as u64,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A GGUF string: borrowed bytes that are valid UTF-8 in every valid file.
///
/// Files that ggml loads but the spec rejects may hold strings that are not UTF-8, so the raw
/// bytes are always available and [`Str::as_str`] says when they are not text. The strings of a
/// header whose parse checked them all (every file opened with the spec's rules) carry their
/// `&str`, so `as_str` costs nothing for them.
#[derive(Clone, Copy)]
pub struct Str<'a>(StrRepr<'a>);

#[derive(Clone, Copy)]
enum StrRepr<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Str<'a> {
    #[inline]
    pub(crate) fn from_bytes(b: &'a [u8]) -> Self {
        Str(StrRepr::Bytes(b))
    }

    /// A string of a parsed header: text at once when the parser checked every string of it.
    #[inline(always)]
    pub(crate) fn of_header(b: &'a [u8], checked: Option<CheckedText>) -> Self {
        match checked {
            Some(c) => Str(StrRepr::Text(c.str(b))),
            None => Str(StrRepr::Bytes(b)),
        }
    }

    /// The raw bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        match self.0 {
            StrRepr::Text(s) => s.as_bytes(),
            StrRepr::Bytes(b) => b,
        }
    }

    /// The string, or `None` when the bytes are not UTF-8.
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        match self.0 {
            StrRepr::Text(s) => Some(s),
            StrRepr::Bytes(b) => utf8(b),
        }
    }

    /// The string with invalid sequences replaced by U+FFFD.
    #[inline]
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'a, str> {
        match self.0 {
            StrRepr::Text(s) => std::borrow::Cow::Borrowed(s),
            // the strict check first: it is much faster than the lossy decoder on valid text
            StrRepr::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(b),
            },
        }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Str<'_> {}

impl std::hash::Hash for Str<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// UTF-8 check: the standard library's for short strings (names, tokens), SIMD for long ones.
#[inline]
pub(crate) fn utf8(b: &[u8]) -> Option<&str> {
    if b.len() < 64 {
        std::str::from_utf8(b).ok()
    } else {
        simdutf8::basic::from_utf8(b).ok()
    }
}

/// One metadata value, borrowed from the header bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    /// The raw byte is kept: valid files hold 0 or 1, ggml reads anything else as true.
    Bool(u8),
    String(Str<'a>),
    Array(ArrayView<'a>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl<'a> Value<'a> {
    /// The value's type.
    #[inline]
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::U8(_) => ValueType::U8,
            Value::I8(_) => ValueType::I8,
            Value::U16(_) => ValueType::U16,
            Value::I16(_) => ValueType::I16,
            Value::U32(_) => ValueType::U32,
            Value::I32(_) => ValueType::I32,
            Value::F32(_) => ValueType::F32,
            Value::Bool(_) => ValueType::Bool,
            Value::String(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::U64(_) => ValueType::U64,
            Value::I64(_) => ValueType::I64,
            Value::F64(_) => ValueType::F64,
        }
    }

    /// The string, when this is a UTF-8 string.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::String(s) => s.as_str(),
            _ => None,
        }
    }

    /// The array view, when this is an array.
    #[inline]
    pub fn as_array(&self) -> Option<ArrayView<'a>> {
        match self {
            Value::Array(a) => Some(*a),
            _ => None,
        }
    }

    /// The bool, when this is a bool (any non-zero byte is true, as in ggml).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b != 0),
            _ => None,
        }
    }

    /// Any integer type, as `u64`, when the value is a non-negative integer.
    #[inline]
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any integer type, as `i64`, when it fits.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => i64::try_from(v).ok(),
            Value::I8(v) => Some(v.into()),
            Value::I16(v) => Some(v.into()),
            Value::I32(v) => Some(v.into()),
            Value::I64(v) => Some(v),
            _ => None,
        }
    }

    /// Any numeric type as `f64` (integers above 2^53 lose precision).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            _ => self
                .as_i64()
                .map(|v| v as f64)
                .or_else(|| self.as_u64().map(|v| v as f64)),
        }
    }
}

/// A metadata array: element type, element count and the bytes of the elements, borrowed.
#[derive(Clone, Copy)]
pub struct ArrayView<'a> {
    pub(crate) elem: ValueType,
    pub(crate) len: u64,
    /// Exactly the encoded elements (after the type and count fields).
    pub(crate) bytes: &'a [u8],
    pub(crate) endian: Endian,
    /// What the parser learnt about the header's arrays, for views into a parsed header.
    pub(crate) index: Option<IndexRef<'a>>,
}

impl PartialEq for ArrayView<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.elem, self.len, self.bytes, self.endian)
            == (other.elem, other.len, other.bytes, other.endian)
    }
}

/// What the parser records about a header's arrays so that walking them later is cheap.
///
/// **Nested array ends.** Without them, stepping over an element that is itself an array means
/// measuring everything inside it, and walking a deep nest measures each level once per level
/// above it: quadratic in the depth. Only arrays that are
/// not the last element of their parent (the last one ends where its parent ends) and whose own
/// elements are arrays (a string or number array is measured in one pass) are recorded: none in a
/// file without nesting. Positions take 4 bytes each while they fit.
///
/// **String lengths.** Walking a string array means reading each length to find the next one:
/// a chain of dependent loads, each waiting for the one before: most of the cost of a
/// vocabulary walk. For arrays of [`Self::LENS_MIN`] strings or more, the parser keeps each
/// length in a byte (255 for 255 or more), so [`StrIter`] finds the next string with an add
/// instead of a load: one byte per string, an eighth of the array at most.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueIndex {
    /// (start, end) of nested arrays starting below 4 GiB, in order of their start.
    low: Vec<(u32, u32)>,
    /// The same past 4 GiB (only in headers that large).
    high: Vec<(u64, u64)>,
    /// (where the elements start, index of the first length in `lens`) of each string array
    /// whose lengths are kept, in order of their start.
    string_arrays: Vec<(u64, usize)>,
    /// The kept string lengths, a byte each (see [`short_len`](crate::read)).
    pub(crate) lens: Vec<u8>,
    /// Present when the parser checked every string of the header and found them all valid.
    pub(crate) text: Option<CheckedText>,
}

impl ValueIndex {
    /// Arrays with fewer strings do not keep their lengths.
    pub(crate) const LENS_MIN: u64 = 64;

    /// Starts keeping the lengths of a string array of `count` strings whose elements start at
    /// `start`, when it is large enough; the caller then pushes exactly `count` lengths.
    pub(crate) fn begin_strings(&mut self, start: u64, count: u64) -> bool {
        let Ok(n) = usize::try_from(count) else {
            return false;
        };
        if count < Self::LENS_MIN {
            return false;
        }
        self.string_arrays.push((start, self.lens.len()));
        // the count was checked against the bytes (8 at least a string): bounded by the input
        self.lens.reserve(n);
        true
    }

    /// The kept lengths of the `count` strings whose elements start at `start`.
    #[inline]
    pub(crate) fn string_lens(&self, start: u64, count: u64) -> Option<&[u8]> {
        let i = self
            .string_arrays
            .binary_search_by_key(&start, |e| e.0)
            .ok()?;
        let first = self.string_arrays[i].1;
        self.lens
            .get(first..first.checked_add(usize::try_from(count).ok()?)?)
    }

    /// Records an array starting at `start` (its type field); returns its slot for [`Self::close`],
    /// or `None` past what the table indexes.
    pub(crate) fn open(&mut self, start: u64) -> Option<u32> {
        let slot = u32::try_from(self.low.len() + self.high.len()).ok()?;
        match u32::try_from(start) {
            Ok(s) if self.high.is_empty() => self.low.push((s, 0)),
            _ => self.high.push((start, 0)),
        }
        Some(slot)
    }

    /// Sets the end of the array in `slot`.
    pub(crate) fn close(&mut self, slot: u32, end: u64) {
        let i = slot as usize;
        if i < self.low.len() {
            // an end past 4 GiB does not fit: u32::MAX marks it unknown (measured when walked)
            self.low[i].1 = u32::try_from(end).unwrap_or(u32::MAX);
        } else if let Some(e) = self.high.get_mut(i - self.low.len()) {
            e.1 = end;
        }
    }

    /// Where the array starting at `start` ends, when it was recorded.
    pub(crate) fn end_of(&self, start: u64) -> Option<u64> {
        match u32::try_from(start) {
            Ok(s) => {
                let i = self.low.binary_search_by_key(&s, |e| e.0).ok()?;
                let end = self.low[i].1;
                // 0: never closed; u32::MAX: did not fit
                (end != u32::MAX && end != 0).then_some(u64::from(end))
            }
            Err(_) => {
                let i = self.high.binary_search_by_key(&start, |e| e.0).ok()?;
                let end = self.high[i].1;
                (end != 0).then_some(end)
            }
        }
    }

    /// Bytes the table holds on the heap.
    #[cfg(test)]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.low.capacity() * 8 + self.high.capacity() * 16 + self.lens.capacity()
    }
}

/// A header's [`ValueIndex`] with the address of its first byte, so that a view can tell where
/// in the header an element starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexRef<'a> {
    pub(crate) index: &'a ValueIndex,
    /// The address of byte 0 of the header (compared, never dereferenced).
    pub(crate) origin: usize,
}

impl<'a> IndexRef<'a> {
    /// Bytes used by the elements of the nested array whose encoding starts at `at` (its type
    /// field), when the parser recorded its end and that end lies within `avail` bytes.
    fn body_len(&self, at: &[u8], avail: usize) -> Option<usize> {
        let start = self.position(at)?;
        let end = self.index.end_of(start)?;
        let used = usize::try_from(end.checked_sub(start)?.checked_sub(12)?).ok()?;
        (used <= avail).then_some(used)
    }

    /// The kept lengths of the string array whose `count` elements are `elements`.
    #[inline]
    fn string_lens(&self, elements: &[u8], count: u64) -> Option<&'a [u8]> {
        self.index.string_lens(self.position(elements)?, count)
    }

    /// Where `bytes` start in the header.
    #[inline]
    fn position(&self, bytes: &[u8]) -> Option<u64> {
        Some((bytes.as_ptr() as usize).checked_sub(self.origin)? as u64)
    }
}

impl fmt::Debug for ArrayView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArrayView")
            .field("elem", &self.elem)
            .field("len", &self.len)
            .field("bytes", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

impl<'a> ArrayView<'a> {
    /// The type of every element.
    #[inline]
    pub fn element_type(&self) -> ValueType {
        self.elem
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The encoded elements, in the file's byte order.
    #[inline]
    pub fn raw_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The byte order the elements are stored in.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Every element, decoded one at a time (nested arrays become [`Value::Array`]).
    #[inline]
    pub fn iter(&self) -> ArrayIter<'a> {
        ArrayIter {
            elem: self.elem,
            remaining: self.len,
            rest: self.bytes,
            endian: self.endian,
            index: self.index,
        }
    }

    /// Element `i` of a fixed-size array in O(1); walks the array for strings and nested arrays.
    pub fn get(&self, i: u64) -> Option<Value<'a>> {
        if i >= self.len {
            return None;
        }
        match self.elem.fixed_size() {
            Some(size) => {
                let start = usize::try_from(i).ok()?.checked_mul(size)?;
                let b = self.bytes.get(start..start.checked_add(size)?)?;
                decode_fixed(self.elem, b, self.endian)
            }
            None => self.iter().nth(usize::try_from(i).ok()?),
        }
    }

    /// The elements of a string array as borrowed strings; `None` for other element types.
    #[inline]
    pub fn strings(&self) -> Option<StrIter<'a>> {
        if self.elem != ValueType::String {
            return None;
        }
        let mut it = StrIter::new(self.len, self.bytes, self.endian);
        if let Some(index) = self.index {
            it.checked = index.index.text;
            if let Some(lens) = index.string_lens(self.bytes, self.len) {
                it.lens = lens;
            }
        }
        Some(it)
    }

    /// A typed view of a numeric or bool array; `None` when the element type is not `T`'s.
    #[inline]
    pub fn typed<T: Scalar>(&self) -> Option<TypedArray<'a, T>> {
        (self.elem == T::TYPE).then_some(TypedArray {
            bytes: self.bytes,
            endian: self.endian,
            _t: PhantomData,
        })
    }
}

/// Iterator over the elements of an [`ArrayView`].
#[derive(Clone, Debug)]
pub struct ArrayIter<'a> {
    elem: ValueType,
    remaining: u64,
    rest: &'a [u8],
    endian: Endian,
    index: Option<IndexRef<'a>>,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        if let Some(size) = self.elem.fixed_size() {
            // the common case, numbers: no length to read, one chunk per element
            let (head, rest) = self.rest.split_at_checked(size)?;
            self.rest = rest;
            return decode_fixed(self.elem, head, self.endian);
        }
        if self.elem == ValueType::Array {
            return self.next_array();
        }
        let checked = self.index.and_then(|i| i.index.text);
        let (v, used) = decode_value(self.elem, self.rest, self.endian, checked)?;
        self.rest = &self.rest[used..];
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (0, Some(n))
    }
}

impl<'a> ArrayIter<'a> {
    /// The next element of an array of arrays, found in O(1) or O(log n): the last element takes
    /// what is left of the parent; an array of arrays before it ends where the parser recorded;
    /// any other array is measured in one pass over its own elements (strings or numbers).
    fn next_array(&mut self) -> Option<Value<'a>> {
        let head = self.rest.get(..12)?;
        let elem = ValueType::from_id(self.endian.u32(*head.first_chunk::<4>()?))?;
        let len = self.endian.u64(*head[4..].first_chunk::<8>()?);
        let body = &self.rest[12..];
        let used = if self.remaining == 0 {
            body.len()
        } else {
            let recorded = match self.index {
                Some(n) if elem == ValueType::Array && len > 0 => n.body_len(head, body.len()),
                _ => None,
            };
            match recorded {
                Some(used) => used,
                None => measure_elements(elem, len, body, self.endian)?,
            }
        };
        let view = ArrayView {
            elem,
            len,
            bytes: &body[..used],
            endian: self.endian,
            index: self.index,
        };
        self.rest = &body[used..];
        Some(Value::Array(view))
    }
}

/// Iterator over the strings of a string array, borrowed from the header.
///
/// In a header whose parse checked every string (every file opened with the spec's rules, and a
/// permissive one that found no bad string), each string is text at once: nothing is checked again.
/// Otherwise strings are checked as UTF-8 a stretch at a time, not one by one: the iterator checks
/// the next [`StrIter::STRETCH`] bytes of the array (length fields included) in one pass, while
/// they are about to be read anyway, and each string inside that checked text is then a slice
/// between two character boundaries (an O(1) check: a slice of valid UTF-8 between boundaries is
/// valid UTF-8 by itself). A string the stretch does not cover starts the next one. Where the
/// stretch stops early (a length field that is not ASCII and not UTF-8, or a string that is not
/// text), the string there is yielded as raw bytes and checked alone when asked. The work stays
/// linear: stretches overlap by at most one string.
#[derive(Clone, Debug)]
pub struct StrIter<'a> {
    remaining: u64,
    rest: &'a [u8],
    /// Checked text at the start of `rest` (possibly empty), ending at a character boundary.
    text: &'a str,
    endian: Endian,
    /// The parser's record of the lengths of the strings left, when it kept them (else empty).
    lens: &'a [u8],
    /// The parser's proof that every string is valid: no stretch is checked then.
    checked: Option<CheckedText>,
}

impl<'a> StrIter<'a> {
    /// Bytes checked at a time: small enough to stay in the L1/L2 cache until the strings in
    /// them are read, large enough to amortise the call.
    pub const STRETCH: usize = 32 * 1024;

    fn new(count: u64, bytes: &'a [u8], endian: Endian) -> Self {
        StrIter {
            remaining: count,
            rest: bytes,
            text: "",
            endian,
            lens: &[],
            checked: None,
        }
    }
}

/// Checks the stretch at the start of `b`, at least `need` bytes long: the longest valid text
/// it begins with. A free function, not a method, so the iterator calling it stays in registers.
#[inline(never)]
fn check_stretch(b: &[u8], need: usize) -> &str {
    let mut end = need.max(StrIter::STRETCH).min(b.len());
    // end the stretch before a character, not inside one (at most 3 continuation bytes)
    let mut k = 0;
    while k < 3 && end > need && end < b.len() && b[end] & 0xC0 == 0x80 {
        end -= 1;
        k += 1;
    }
    let chunk = &b[..end];
    // the compat check stops at the first bad block: a stretch that fails early (a length
    // field that is not UTF-8) costs what it checked, not the whole stretch
    match simdutf8::compat::from_utf8(chunk) {
        Ok(t) => t,
        Err(e) => simdutf8::basic::from_utf8(&chunk[..e.valid_up_to()]).unwrap_or(""),
    }
}

impl<'a> Iterator for StrIter<'a> {
    type Item = Str<'a>;

    #[inline]
    fn next(&mut self) -> Option<Str<'a>> {
        if self.remaining == 0 {
            return None;
        }
        let len = match self.lens.split_first() {
            // the kept length: the next string is found without waiting for a load of the header
            Some((&l, more)) if l < 255 => {
                self.lens = more;
                usize::from(l)
            }
            _ => {
                self.lens = self.lens.get(1..).unwrap_or(&[]);
                let len_bytes = *self.rest.first_chunk::<8>()?;
                usize::try_from(self.endian.u64(len_bytes)).ok()?
            }
        };
        let end = len.checked_add(8)?;
        if end > self.rest.len() {
            return None;
        }
        self.remaining -= 1;
        if let Some(c) = self.checked {
            // the parser checked every string: no stretch to check, no boundary to find
            let item = Str(StrRepr::Text(c.str(&self.rest[8..end])));
            self.rest = &self.rest[end..];
            return Some(item);
        }
        let mut text = self.text.get(8..end);
        if text.is_none() && end > self.text.len() {
            // the checked stretch ends before this string does: check the next one
            self.text = check_stretch(self.rest, end);
            text = self.text.get(8..end);
        }
        let item = match text {
            Some(s) => Str(StrRepr::Text(s)),
            None => Str::from_bytes(&self.rest[8..end]),
        };
        self.text = self.text.get(end..).unwrap_or("");
        self.rest = &self.rest[end..];
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (0, Some(n))
    }

    /// Skips `n` strings in one pass over the lengths the parser kept, when it kept them all and
    /// checked every string (a special token's text by its id without walking the vocabulary
    /// string by string); otherwise one string at a time.
    fn nth(&mut self, n: usize) -> Option<Str<'a>> {
        if let (Some(_), Some(lens)) = (self.checked, self.lens.get(..n)) {
            // 255 marks a length kept in the header only
            if n as u64 <= self.remaining && memchr::memchr(255, lens).is_none() {
                let text: usize = lens.iter().map(|&l| usize::from(l)).sum();
                let skip = text.checked_add(n.checked_mul(8)?)?;
                if skip <= self.rest.len() {
                    self.rest = &self.rest[skip..];
                    self.lens = &self.lens[n..];
                    self.remaining -= n as u64;
                    return self.next();
                }
            }
        }
        for _ in 0..n {
            self.next()?;
        }
        self.next()
    }
}

/// A Rust type that a fixed-size metadata value decodes to.
pub trait Scalar: Copy + bytemuck::Pod + fmt::Debug {
    /// The value type whose elements decode to `Self`.
    const TYPE: ValueType;
    /// Decodes one element from exactly `size_of::<Self>()` bytes.
    fn decode(bytes: &[u8], endian: Endian) -> Self;
}

macro_rules! scalar {
    ($($t:ty => $vt:ident),*) => {$(
        impl Scalar for $t {
            const TYPE: ValueType = ValueType::$vt;
            #[inline]
            fn decode(bytes: &[u8], endian: Endian) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                match endian {
                    Endian::Little => <$t>::from_le_bytes(a),
                    Endian::Big => <$t>::from_be_bytes(a),
                }
            }
        }
    )*};
}
scalar!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32,
        u64 => U64, i64 => I64, f64 => F64);

/// A typed view of a numeric array: random access, iteration, and a borrowed slice when possible.
#[derive(Clone, Copy, Debug)]
pub struct TypedArray<'a, T> {
    bytes: &'a [u8],
    endian: Endian,
    _t: PhantomData<T>,
}

impl<'a, T: Scalar> TypedArray<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / std::mem::size_of::<T>()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<T> {
        let size = std::mem::size_of::<T>();
        let start = i.checked_mul(size)?;
        let b = self.bytes.get(start..start.checked_add(size)?)?;
        Some(T::decode(b, self.endian))
    }

    /// The elements as a borrowed slice, when the file's byte order is this machine's and the
    /// bytes are aligned for `T` (always the case for one-byte types).
    #[inline]
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if std::mem::size_of::<T>() > 1 && !self.endian.is_native() {
            return None;
        }
        bytemuck::try_cast_slice(self.bytes).ok()
    }

    /// Every element, decoded.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        let endian = self.endian;
        self.bytes
            .chunks_exact(std::mem::size_of::<T>())
            .map(move |c| T::decode(c, endian))
    }

    /// The elements, copied into a vector (borrowing when possible would be [`Self::as_slice`]).
    pub fn to_vec(&self) -> Vec<T> {
        match self.as_slice() {
            Some(s) => s.to_vec(),
            None => self.iter().collect(),
        }
    }
}

/// Decodes a fixed-size value from exactly its bytes.
fn decode_fixed<'a>(t: ValueType, b: &[u8], e: Endian) -> Option<Value<'a>> {
    Some(match t {
        ValueType::U8 => Value::U8(b[0]),
        ValueType::I8 => Value::I8(b[0] as i8),
        ValueType::Bool => Value::Bool(b[0]),
        ValueType::U16 => Value::U16(u16::decode(b, e)),
        ValueType::I16 => Value::I16(i16::decode(b, e)),
        ValueType::U32 => Value::U32(u32::decode(b, e)),
        ValueType::I32 => Value::I32(i32::decode(b, e)),
        ValueType::F32 => Value::F32(f32::decode(b, e)),
        ValueType::U64 => Value::U64(u64::decode(b, e)),
        ValueType::I64 => Value::I64(i64::decode(b, e)),
        ValueType::F64 => Value::F64(f64::decode(b, e)),
        ValueType::String | ValueType::Array => return None,
    })
}

/// Decodes one value of type `t` at the start of `b`, returning it and the bytes it used.
///
/// Only called on bytes the parser has already checked, but still bounds-checked: a `None` here
/// ends an iteration early instead of panicking. Nested arrays are measured without recursion.
pub(crate) fn decode_value<'a>(
    t: ValueType,
    b: &'a [u8],
    e: Endian,
    checked: Option<CheckedText>,
) -> Option<(Value<'a>, usize)> {
    if let Some(size) = t.fixed_size() {
        return Some((decode_fixed(t, b.get(..size)?, e)?, size));
    }
    match t {
        ValueType::String => {
            let (len, rest) = b.split_first_chunk::<8>()?;
            let len = usize::try_from(e.u64(*len)).ok()?;
            Some((
                Value::String(Str::of_header(rest.get(..len)?, checked)),
                8 + len,
            ))
        }
        _ => {
            let elem = ValueType::from_id(e.u32(*b.first_chunk::<4>()?))?;
            let len = e.u64(*b.get(4..12)?.first_chunk::<8>()?);
            let body = &b[12..];
            let used = measure_elements(elem, len, body, e)?;
            let view = ArrayView {
                elem,
                len,
                bytes: &body[..used],
                endian: e,
                index: None,
            };
            Some((Value::Array(view), 12 + used))
        }
    }
}

/// Decodes the value of a key-value pair whose encoded bytes are exactly `b` (the parser knows
/// where each pair ends), so a top-level array is not walked to find its length. `index` is what
/// the parser recorded about arrays, when the bytes are a parsed header's.
pub(crate) fn decode_exact<'a>(
    t: ValueType,
    b: &'a [u8],
    e: Endian,
    index: Option<IndexRef<'a>>,
) -> Option<Value<'a>> {
    if t != ValueType::Array {
        let checked = index.and_then(|i| i.index.text);
        return decode_value(t, b, e, checked).map(|(v, _)| v);
    }
    let elem = ValueType::from_id(e.u32(*b.first_chunk::<4>()?))?;
    let len = e.u64(*b.get(4..12)?.first_chunk::<8>()?);
    Some(Value::Array(ArrayView {
        elem,
        len,
        bytes: &b[12..],
        endian: e,
        index,
    }))
}

/// Byte length of `count` encoded elements of type `elem` at the start of `b` (the wire
/// format's walk, without recursion).
pub(crate) fn measure_elements(elem: ValueType, count: u64, b: &[u8], e: Endian) -> Option<usize> {
    crate::wire::ValueWalk::elements(elem, count, 0, e)
        .end(b)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_type_names_round_trip() {
        for t in ValueType::ALL {
            assert_eq!(ValueType::from_id(t.id()), Some(t));
            assert_eq!(ValueType::from_name(t.name()), Some(t));
        }
        assert_eq!(ValueType::from_id(13), None);
        assert_eq!(ValueType::from_name("f32"), Some(ValueType::F32));
    }

    #[test]
    fn typed_array_decodes_both_orders() {
        let le: Vec<u8> = [1u32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let be: Vec<u8> = [1u32, 2, 3].iter().flat_map(|v| v.to_be_bytes()).collect();
        for (bytes, endian) in [(&le, Endian::Little), (&be, Endian::Big)] {
            let a = ArrayView {
                elem: ValueType::U32,
                len: 3,
                bytes,
                endian,
                index: None,
            };
            let t = a.typed::<u32>().unwrap();
            assert_eq!(t.to_vec(), vec![1, 2, 3]);
            assert_eq!(a.get(2), Some(Value::U32(3)));
            assert!(a.typed::<i32>().is_none());
        }
    }

    /// Encodes strings as a GGUF string array's elements.
    fn string_elements(strings: &[Vec<u8>], endian: Endian) -> Vec<u8> {
        let mut out = Vec::new();
        for s in strings {
            let n = s.len() as u64;
            out.extend(match endian {
                Endian::Little => n.to_le_bytes(),
                Endian::Big => n.to_be_bytes(),
            });
            out.extend(s);
        }
        out
    }

    #[test]
    fn str_iter_agrees_with_checking_each_string_alone() {
        // multi-byte characters everywhere (some straddle the stretch boundaries), lengths whose
        // fields are not ASCII (128 bytes and more, 0x80 and 0xC3 0x80 bytes among them), strings
        // that are not UTF-8, empty strings and one string longer than a stretch
        let mut strings: Vec<Vec<u8>> = Vec::new();
        let mut seed = 7u64;
        for i in 0..20_000u32 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (seed >> 33) as usize;
            let s: Vec<u8> = match i % 97 {
                0 => "é".repeat(64 + r % 40).into_bytes(),
                1 => vec![b'a'; 0x80C3],
                2 => b"ok\xffno".to_vec(),
                3 => Vec::new(),
                4 => vec![0xC3],
                _ => "tok\u{00e9}\u{4e2d}\u{1F600}"
                    .chars()
                    .cycle()
                    .skip(r % 5)
                    .take(r % 9)
                    .collect::<String>()
                    .into_bytes(),
            };
            strings.push(s);
        }
        strings.push(vec![b'x'; StrIter::STRETCH * 3 + 5]);
        for endian in [Endian::Little, Endian::Big] {
            let bytes = string_elements(&strings, endian);
            let view = ArrayView {
                elem: ValueType::String,
                len: strings.len() as u64,
                bytes: &bytes,
                endian,
                index: None,
            };
            let got: Vec<Str<'_>> = view.strings().expect("strings").collect();
            assert_eq!(got.len(), strings.len());
            for (i, (g, want)) in got.iter().zip(&strings).enumerate() {
                assert_eq!(g.as_bytes(), &want[..], "string {i}");
                assert_eq!(g.as_str(), std::str::from_utf8(want).ok(), "string {i}");
            }
        }
    }
}
