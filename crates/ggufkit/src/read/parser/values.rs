//! Key-value pairs: the key, the value type and the value; arrays, nested to any depth, walked
//! without recursion in frames of 8 bytes.
#![forbid(unsafe_code)]

use hashbrown::HashTable;

use super::{guess, PResult, Parser, Paths, Stop};
use crate::read::index::{KvEntry, KvList};
use crate::read::source::Source;
use crate::rules;
use crate::wire::ValueType;
use crate::wire::{ALIGNMENT_KEY, DEFAULT_ALIGNMENT};

/// What the key-value pairs leave for the rest of the header.
pub(super) struct Keys {
    /// Indices into the pairs, by key: 4 bytes a slot (counts beyond 2^32 are refused).
    pub index: HashTable<u32>,
    /// The hasher `index` was built with (seeded per instance).
    pub hasher: hashbrown::DefaultHashBuilder,
    /// `general.alignment`, or the default.
    pub alignment: u32,
}

impl<S: Source> Parser<'_, S> {
    /// The `n_kv` key-value pairs, entered in `kvs` as they are read.
    pub(super) fn key_value_pairs(&mut self, n_kv: u64, kvs: &mut KvList) -> PResult<Keys> {
        // The count was checked against the bytes, so sizing by it is bounded by the input.
        kvs.reserve(n_kv as usize);
        let mut keys = Keys {
            index: HashTable::with_capacity(n_kv as usize),
            hasher: hashbrown::DefaultHashBuilder::default(),
            alignment: DEFAULT_ALIGNMENT,
        };
        for i in 0..n_kv {
            self.pair(i, kvs, &mut keys)?;
        }
        Ok(keys)
    }

    /// Key-value pair `i`: its key (entered in the key index), its type and its value.
    fn pair(&mut self, i: u64, kvs: &mut KvList, keys: &mut Keys) -> PResult<()> {
        let start = self.cur.pos;
        let len = self
            .cur
            .read_u64(&|_: &[u8]| format!("the key length of key-value pair {i}"))?;
        if !rules::key_not_empty(len) {
            self.soft(rules::key_empty_violation(start, i))?;
        }
        let key_of = |_: &[u8]| format!("the key of key-value pair {i}");
        self.cur.need_string_bytes(start, len, &key_of)?;
        let key_pos = self.cur.pos;
        self.cur.pos += len;
        self.check_name(key_pos, len, &key_of)?;
        self.enter_key(keys, kvs, i, start, key_pos, len)?;
        self.key = (key_pos, len);
        let key = self.key;
        let is_alignment = self.cur.slice(key_pos, len) == ALIGNMENT_KEY.as_bytes();

        let type_pos = self.cur.pos;
        let raw_type = self
            .cur
            .read_u32(&|b: &[u8]| format!("the value type of {}", pair_name(b, key, i)))?;
        let Some(vt) = rules::value_type(raw_type) else {
            let key = self.cur.slice(key_pos, len);
            return Err(Stop::Rule(rules::value_type_violation(
                type_pos, key, raw_type,
            )));
        };
        let value_pos = self.cur.pos;
        self.value(vt, i)?;
        if is_alignment {
            keys.alignment = self.alignment(vt, value_pos)?;
        }
        kvs.push(KvEntry {
            start,
            end: self.cur.pos,
        });
        Ok(())
    }

    /// The value of `general.alignment`, checked by the `alignment` rule.
    fn alignment(&mut self, vt: ValueType, value_pos: u64) -> PResult<u32> {
        if !rules::alignment_type(vt) {
            return Err(Stop::Rule(rules::alignment_type_violation(value_pos, vt)));
        }
        let v = self.cur.u32_at(value_pos);
        if !rules::alignment_value(v) {
            return Err(Stop::Rule(rules::alignment_value_violation(value_pos, v)));
        }
        Ok(v)
    }

    /// Reads a GGUF string (length, bytes) whose length field is at the cursor: `truncated` at the
    /// length field when the bytes are not there, `value.utf8` at the bytes when they are not text.
    /// Returns the position and length of the bytes.
    #[inline]
    pub(super) fn string(&mut self, what: &dyn Fn(&[u8]) -> String) -> PResult<(u64, u64)> {
        let at = self.cur.pos;
        let len = self.cur.read_u64(what)?;
        self.cur.need_string_bytes(at, len, what)?;
        let start = self.cur.pos;
        self.cur.pos += len;
        self.check_utf8(start, len, what)?;
        Ok((start, len))
    }

    /// Reads one value of type `vt` at the cursor; arrays (nested ones too) without recursion.
    /// Kept out of line: the loops of string arrays compile best as a function of their own.
    #[inline(never)]
    fn value(&mut self, vt: ValueType, kv: u64) -> PResult<()> {
        let key = self.key;
        match vt {
            ValueType::String => {
                self.string(&|b: &[u8]| format!("the string value of {}", pair_name(b, key, kv)))?;
                Ok(())
            }
            ValueType::Array => self.array(kv),
            ValueType::Bool => {
                let at = self.cur.pos;
                self.cur.need(1, at, &|b: &[u8]| {
                    format!("the bool value of {}", pair_name(b, key, kv))
                })?;
                self.cur.pos += 1;
                self.check_bools(at, 1, kv)
            }
            t => {
                let size = t.fixed_size().unwrap_or(0) as u64;
                let at = self.cur.pos;
                self.cur.need(size, at, &|b: &[u8]| {
                    format!("the {} value of {}", t.name(), pair_name(b, key, kv))
                })?;
                self.cur.pos += size;
                Ok(())
            }
        }
    }

    /// `value.bool` over the `n` bool bytes at `at`.
    fn check_bools(&mut self, at: u64, n: u64, kv: u64) -> PResult<()> {
        if let Some(k) = rules::first_bad_bool(self.cur.slice(at, n)) {
            let b = self.cur.slice(at, n)[k];
            self.soft(rules::value_bool_violation(at + k as u64, kv, b))?;
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
        let type_pos = self.cur.pos;
        let key = self.key;
        let raw = self.cur.read_u32(&|b: &[u8]| {
            format!("the element type of an array in {}", pair_name(b, key, kv))
        })?;
        let Some(elem) = rules::value_type(raw) else {
            return Err(Stop::Rule(rules::element_type_violation(type_pos, kv, raw)));
        };
        if elem == ValueType::Array && outermost {
            self.warn(rules::ggml_nested_array_warning(type_pos, kv));
        }
        let count_pos = self.cur.pos;
        let count = self.cur.read_u64(&|b: &[u8]| {
            format!("the element count of an array in {}", pair_name(b, key, kv))
        })?;
        if elem == ValueType::String {
            let start = self.cur.pos;
            let end = start.saturating_add(count.saturating_mul(guess::MEAN_STRING));
            if end > self.cur.bytes().len() as u64 {
                self.cur
                    .src
                    .expect(guess::header_end_guess(start, end, count));
            }
        }
        self.cur
            .need_count(count, elem.min_size(), count_pos, &|b: &[u8]| {
                format!("the {} array of {}", elem.name(), pair_name(b, key, kv))
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
                self.value_index.close(slot, self.cur.pos);
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
                    match self.paths {
                        Paths::Fast => self.string_elements(left, kv)?,
                        Paths::FieldByField => self.string_elements_one_by_one(left, kv)?,
                    }
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
                    let at = self.cur.pos;
                    let key = self.key;
                    self.cur.need(n, at, &|b: &[u8]| {
                        format!("the {} array of {}", t.name(), pair_name(b, key, kv))
                    })?;
                    self.cur.pos += n;
                    if t == ValueType::Bool {
                        self.check_bools(at, n, kv)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A frame of the nested-array walk in 8 bytes (a megabyte of nesting keeps a frame per level):
/// the element type in the top 4 bits, whether the array's end is recorded in bit 59, and the
/// elements left below (counts were checked against the bytes, so they are far below 2^59).
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame(u64);

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

/// A key-value pair in a message: by its key once the key is read (`key 'general.name'`, the
/// key at `key` in the file's bytes `b`), else by its index.
#[cold]
pub(super) fn pair_name(b: &[u8], key: (u64, u64), kv: u64) -> String {
    let (at, len) = (key.0 as usize, key.1 as usize);
    match at.checked_add(len).and_then(|end| b.get(at..end)) {
        Some(k) if len > 0 => format!("key '{}'", rules::show(k)),
        _ => format!("key-value pair {kv}"),
    }
}

#[cfg(test)]
mod tests {
    use crate::read::parser::{parse, Mode};
    use crate::read::source::SliceSource;

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
}
