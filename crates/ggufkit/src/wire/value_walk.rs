//! The encoding of a value, walked piece by piece: a number is its bytes, a string a `u64` length
//! and its bytes, an array its element type, its element count and its elements, nested arrays
//! to any depth without recursion. The value views measure nested arrays with it, byte-order
//! conversion swaps each multi-byte field it yields.
#![forbid(unsafe_code)]

use std::fmt;

use super::ValueType;
use crate::endian::Endian;

use super::{ARRAY_HEAD, STRING_LEN};

/// One field (or run of fields) of an encoded value, in the order the bytes hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// `count` fixed-size values of type `ty` from `at`: a number or bool value is one, the
    /// elements of a number or bool array are all of them.
    Scalars {
        ty: ValueType,
        at: usize,
        count: u64,
    },
    /// A string: its length field at `at`, then its `len` bytes.
    String { at: usize, len: u64 },
    /// An array's header at `at`: the element type (a `u32`), then the element count (a `u64`);
    /// its elements follow as pieces of their own.
    ArrayHead {
        at: usize,
        elem: ValueType,
        count: u64,
    },
}

/// What an encoding breaks: where, and which field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The bytes end inside `field`, which starts at `at`.
    Short { at: usize, field: Field },
    /// The element type at `at` is `id`, not a type (0 to 12).
    BadType { at: usize, id: u32 },
}

/// A field of the value encoding, as a [`Cut`] names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    StringLen,
    String,
    ElementType,
    ArrayLen,
    /// The elements of an array of fixed-size values (or a scalar value) of this type.
    Elements(ValueType),
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::StringLen => f.write_str("a string length"),
            Field::String => f.write_str("a string"),
            Field::ElementType => f.write_str("an array element type"),
            Field::ArrayLen => f.write_str("an array length"),
            Field::Elements(t) => write!(f, "a {t} array"),
        }
    }
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cut::Short { at, field } => write!(f, "the encoding ends inside {field} at byte {at}"),
            Cut::BadType { at, id } => write!(f, "value type {id} at byte {at} is not 0..12"),
        }
    }
}

/// A walk over an encoded value, one [`Piece`] per [`ValueWalk::next`]; the bytes are passed to
/// each call, so a caller may change a piece's bytes (swap them) between calls.
#[derive(Clone, Debug)]
pub struct ValueWalk {
    /// (element type, elements left) of the arrays being walked, innermost last; an array is
    /// dropped when its last element starts, so the stack is as deep as the nesting that still
    /// has elements to come (bounded by the bytes: 12 a level).
    stack: Vec<(ValueType, u64)>,
    pos: usize,
    endian: Endian,
}

impl ValueWalk {
    /// A walk over one value of type `vt` whose encoding starts at `at`.
    pub fn value(vt: ValueType, at: usize, endian: Endian) -> ValueWalk {
        ValueWalk {
            stack: vec![(vt, 1)],
            pos: at,
            endian,
        }
    }

    /// A walk over `count` elements of type `elem` starting at `at`: the body of an array.
    pub fn elements(elem: ValueType, count: u64, at: usize, endian: Endian) -> ValueWalk {
        ValueWalk {
            stack: vec![(elem, count)],
            pos: at,
            endian,
        }
    }

    /// Where the next piece starts (after the last one, at the end).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next piece of the value in `b`, `None` at its end.
    pub fn next(&mut self, b: &[u8]) -> Result<Option<Piece>, Cut> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                return Ok(None);
            };
            let (t, left) = *top;
            if left == 0 {
                self.stack.pop();
                continue;
            }
            if let Some(size) = t.fixed_size() {
                top.1 = 0;
                let at = self.pos;
                let short = Cut::Short {
                    at,
                    field: Field::Elements(t),
                };
                let end = usize::try_from(left)
                    .ok()
                    .and_then(|n| n.checked_mul(size))
                    .and_then(|n| at.checked_add(n))
                    .filter(|&end| end <= b.len())
                    .ok_or(short)?;
                self.pos = end;
                return Ok(Some(Piece::Scalars {
                    ty: t,
                    at,
                    count: left,
                }));
            }
            top.1 -= 1;
            let last = top.1 == 0;
            let at = self.pos;
            return match t {
                ValueType::String => {
                    let len = self.u64_at(b, at, Field::StringLen)?;
                    let body = at + STRING_LEN as usize;
                    let end = usize::try_from(len)
                        .ok()
                        .and_then(|n| body.checked_add(n))
                        .filter(|&end| end <= b.len())
                        .ok_or(Cut::Short {
                            at: body,
                            field: Field::String,
                        })?;
                    self.pos = end;
                    Ok(Some(Piece::String { at, len }))
                }
                _ => {
                    let id = self.u32_at(b, at, Field::ElementType)?;
                    let elem = ValueType::from_id(id).ok_or(Cut::BadType { at, id })?;
                    let count = self.u64_at(b, at + 4, Field::ArrayLen)?;
                    self.pos = at + ARRAY_HEAD as usize;
                    if last {
                        self.stack.pop();
                    }
                    self.stack.push((elem, count));
                    Ok(Some(Piece::ArrayHead { at, elem, count }))
                }
            };
        }
    }

    /// Walks to the end of the value: where it ends in `b`.
    pub fn end(mut self, b: &[u8]) -> Result<usize, Cut> {
        while self.next(b)?.is_some() {}
        Ok(self.pos)
    }

    fn u32_at(&self, b: &[u8], at: usize, field: Field) -> Result<u32, Cut> {
        let raw = b.get(at..).and_then(|r| r.first_chunk::<4>());
        raw.map(|r| self.endian.u32(*r))
            .ok_or(Cut::Short { at, field })
    }

    fn u64_at(&self, b: &[u8], at: usize, field: Field) -> Result<u64, Cut> {
        let raw = b.get(at..).and_then(|r| r.first_chunk::<8>());
        raw.map(|r| self.endian.u64(*r))
            .ok_or(Cut::Short { at, field })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [[1u16, 2u16], ["ab"]] in little-endian: an array of two arrays.
    fn nested() -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(9u32.to_le_bytes());
        b.extend(2u64.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(2u64.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend(2u16.to_le_bytes());
        b.extend(8u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
        b.extend(2u64.to_le_bytes());
        b.extend(b"ab");
        b
    }

    #[test]
    fn pieces_of_a_nested_array() {
        let b = nested();
        let mut w = ValueWalk::value(ValueType::Array, 0, Endian::Little);
        let mut pieces = Vec::new();
        while let Some(p) = w.next(&b).unwrap() {
            pieces.push(p);
        }
        use ValueType::*;
        assert_eq!(
            pieces,
            [
                Piece::ArrayHead {
                    at: 0,
                    elem: Array,
                    count: 2
                },
                Piece::ArrayHead {
                    at: 12,
                    elem: U16,
                    count: 2
                },
                Piece::Scalars {
                    ty: U16,
                    at: 24,
                    count: 2
                },
                Piece::ArrayHead {
                    at: 28,
                    elem: String,
                    count: 1
                },
                Piece::String { at: 40, len: 2 },
            ]
        );
        assert_eq!(w.position(), b.len());
    }

    #[test]
    fn every_cut_is_named() {
        let b = nested();
        let walk = |n: usize| ValueWalk::value(ValueType::Array, 0, Endian::Little).end(&b[..n]);
        assert_eq!(walk(b.len()), Ok(b.len()));
        for n in 0..b.len() {
            assert!(matches!(walk(n), Err(Cut::Short { .. })), "cut at {n}");
        }
        assert_eq!(
            walk(26),
            Err(Cut::Short {
                at: 24,
                field: Field::Elements(ValueType::U16)
            })
        );
        assert_eq!(
            walk(49),
            Err(Cut::Short {
                at: 48,
                field: Field::String
            })
        );
        let mut bad = b.clone();
        bad[12] = 13;
        assert_eq!(
            ValueWalk::value(ValueType::Array, 0, Endian::Little).end(&bad),
            Err(Cut::BadType { at: 12, id: 13 })
        );
    }

    #[test]
    fn counts_past_the_address_space_are_cuts_not_overflows() {
        let mut b = Vec::new();
        b.extend(12u32.to_le_bytes());
        b.extend(u64::MAX.to_le_bytes());
        let r = ValueWalk::value(ValueType::Array, 0, Endian::Little).end(&b);
        assert!(matches!(r, Err(Cut::Short { at: 12, .. })));
        let mut s = Vec::new();
        s.extend(u64::MAX.to_le_bytes());
        let r = ValueWalk::value(ValueType::String, 0, Endian::Little).end(&s);
        assert_eq!(
            r,
            Err(Cut::Short {
                at: 8,
                field: Field::String
            })
        );
    }
}
