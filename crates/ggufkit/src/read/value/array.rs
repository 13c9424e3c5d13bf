//! [`ArrayView`]: an array of the header, borrowed; its elements one at a time ([`ArrayIter`]),
//! its strings ([`StrIter`]) or its numbers typed ([`TypedArray`]).
#![forbid(unsafe_code)]

use std::fmt;

use super::decode::{decode_fixed, decode_value, measure_elements};
use super::str::Str;
use super::typed::{Scalar, TypedArray};
use super::Value;
use crate::endian::Endian;
use crate::read::text::CheckedText;
use crate::read::value_index::IndexRef;
use crate::wire::ValueType;

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
        (self.elem == T::TYPE).then(|| TypedArray::new(self.bytes, self.endian))
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

    /// Where the next string ends in `rest` (past its 8-byte length), counted as read; `None`
    /// at the end or at a string cut short. The one place the strings' lengths are decoded.
    #[inline]
    fn next_end(&mut self) -> Option<usize> {
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
        Some(end)
    }

    /// Where the strings lie in the array's bytes, as (offset, length), without looking at their
    /// text: for an index over a long array (the merge table's), where the text's checks and
    /// `Str`s would be most of the walk.
    pub fn spans(mut self) -> impl Iterator<Item = (usize, usize)> + 'a {
        let mut at = 0usize;
        std::iter::from_fn(move || {
            let end = self.next_end()?;
            let span = (at + 8, end - 8);
            at += end;
            self.rest = &self.rest[end..];
            Some(span)
        })
    }

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
        let end = self.next_end()?;
        if let Some(c) = self.checked {
            // the parser checked every string: no stretch to check, no boundary to find
            let item = Str::from_text(c.str(&self.rest[8..end]));
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
            Some(s) => Str::from_text(s),
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn spans_are_where_the_strings_lie() {
        let strings: Vec<Vec<u8>> =
            vec![b"a b".to_vec(), Vec::new(), vec![0xff; 300], b"z".to_vec()];
        for endian in [Endian::Little, Endian::Big] {
            let bytes = string_elements(&strings, endian);
            let view = |len: u64, bytes| ArrayView {
                elem: ValueType::String,
                len,
                bytes,
                endian,
                index: None,
            };
            let all = view(strings.len() as u64, &bytes);
            let spans: Vec<(usize, usize)> = all.strings().expect("strings").spans().collect();
            let texts: Vec<&[u8]> = spans.iter().map(|&(at, n)| &bytes[at..at + n]).collect();
            assert_eq!(texts, strings.iter().map(Vec::as_slice).collect::<Vec<_>>());
            // no more than the count, and none past a string cut short
            assert_eq!(view(2, &bytes).strings().unwrap().spans().count(), 2);
            let cut = &bytes[..bytes.len() - 1];
            assert_eq!(
                view(strings.len() as u64, cut)
                    .strings()
                    .unwrap()
                    .spans()
                    .count(),
                3
            );
        }
    }
}
