//! Every block layout, defined once: elements and bytes per block, and where the multi-byte fields
//! sit inside a block.
//!
//! A *field* here is a value ggml reads as a multi-byte number: an f16/f32 scale, or a u16/u32
//! word of packed bits. Byte order applies to fields only; packed nibbles, sign bytes and grid
//! indices are single bytes and never move. The big-endian form of a block is its little-endian
//! form with each field's bytes reversed. The fields follow how ggml's code reads the block, which
//! is wider than `ggml-common.h` declares in four places: the `qh` bits of q5_0/q5_1 (read as one
//! u32), the scale-and-sign words of iq2_xxs and iq3_xxs (u32), and the scales of iq1_m (four u16
//! carrying the f16 super-scale in their top nibbles).
//!
//! [`layout`] is what the size checks, the dequantizers (through [`super::byteswap_blocks`]) and
//! the byte-order converter use; a unit test checks every entry against [`GgmlType`]'s table.

#![forbid(unsafe_code)]

use crate::types::GgmlType;

/// A run of `count` consecutive multi-byte fields of `width` bytes, starting at byte `offset` of a
/// block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Byte offset of the first field in the block.
    pub offset: u16,
    /// Bytes per field: 2, 4 or 8.
    pub width: u8,
    /// Number of consecutive fields.
    pub count: u16,
}

/// The layout of one block of a ggml type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The type.
    pub ty: GgmlType,
    /// Elements per block.
    pub block_elems: usize,
    /// Bytes per block.
    pub block_bytes: usize,
    /// The multi-byte fields, in offset order (empty for byte-only formats).
    pub fields: &'static [Field],
}

const fn f(offset: u16, width: u8, count: u16) -> Field {
    Field {
        offset,
        width,
        count,
    }
}

macro_rules! layouts {
    ($($ty:ident $elems:literal $bytes:literal [$($o:literal $w:literal $c:literal),*];)*) => {
        static LAYOUTS: &[Layout] = &[
            $(Layout {
                ty: GgmlType::$ty,
                block_elems: $elems,
                block_bytes: $bytes,
                fields: &[$(f($o, $w, $c)),*],
            },)*
        ];
    };
}

// type   elems bytes  [offset width count, ...]          what the fields are
layouts! {
    F32     1    4   [0 4 1];
    F16     1    2   [0 2 1];
    BF16    1    2   [0 2 1];
    F64     1    8   [0 8 1];
    I8      1    1   [];
    I16     1    2   [0 2 1];
    I32     1    4   [0 4 1];
    I64     1    8   [0 8 1];
    Q4_0   32   18   [0 2 1];                      // d
    Q4_1   32   20   [0 2 2];                      // d, m
    Q5_0   32   22   [0 2 1, 2 4 1];               // d, qh
    Q5_1   32   24   [0 2 2, 4 4 1];               // d, m, qh
    Q8_0   32   34   [0 2 1];                      // d
    Q8_1   32   36   [0 2 2];                      // d, s
    Q2_K  256   84   [80 2 2];                     // d, dmin after scales[16], qs[64]
    Q3_K  256  110   [108 2 1];                    // d after hmask[32], qs[64], scales[12]
    Q4_K  256  144   [0 2 2];                      // d, dmin
    Q5_K  256  176   [0 2 2];                      // d, dmin
    Q6_K  256  210   [208 2 1];                    // d after ql[128], qh[64], scales[16]
    Q8_K  256  292   [0 4 1, 260 2 16];            // f32 d, qs[256], i16 bsums[16]
    IQ2_XXS 256 66   [0 2 1, 6 4 1, 14 4 1, 22 4 1, 30 4 1, 38 4 1, 46 4 1, 54 4 1, 62 4 1];
                                                   // d; per 32: 4 grid bytes, u32 scale+signs
    IQ2_XS 256  74   [0 2 1, 2 2 32];              // d, u16 qs[32], scales[8]
    IQ2_S  256  82   [0 2 1];                      // d, qs[64], qh[8], scales[8]
    IQ3_XXS 256 98   [0 2 1, 66 4 8];              // d, grid bytes[64], u32 scale+signs[8]
    IQ3_S  256 110   [0 2 1];                      // d, qs[64], qh[8], signs[32], scales[4]
    IQ1_S  256  50   [0 2 1, 34 2 8];              // d, qs[32], u16 qh[8]
    IQ1_M  256  56   [48 2 4];                     // qs[32], qh[16], u16 scales[4]
    IQ4_NL  32  18   [0 2 1];                      // d
    IQ4_XS 256 136   [0 2 2];                      // d, u16 scales_h, scales_l[4], qs[128]
    TQ1_0  256  54   [52 2 1];                     // d after qs[48], qh[4]
    TQ2_0  256  66   [64 2 1];                     // d after qs[64]
    MXFP4   32  17   [];                           // e8m0 byte, qs[16]
    NVFP4   64  36   [];                           // ue4m3 bytes[4], qs[32]
    Q1_0   128  18   [0 2 1];                      // d
    Q2_0    64  18   [0 2 1];                      // d
}

/// The block layout of `ty`; `None` for the removed ids.
pub fn layout(ty: GgmlType) -> Option<&'static Layout> {
    LAYOUTS.iter().find(|l| l.ty == ty)
}

/// Reverses the bytes of every field of every whole block in `data` (`data.len()` must be a
/// multiple of the block size; a tail shorter than a block is left alone).
pub(crate) fn swap_fields(l: &Layout, data: &mut [u8]) {
    if l.fields.is_empty() {
        return;
    }
    for block in data.chunks_exact_mut(l.block_bytes) {
        for fd in l.fields {
            let w = usize::from(fd.width);
            let start = usize::from(fd.offset);
            let end = start + w * usize::from(fd.count);
            for v in block[start..end].chunks_exact_mut(w) {
                v.reverse();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_type_has_one_consistent_layout() {
        for ty in GgmlType::all() {
            let Some(l) = layout(ty) else {
                assert!(ty.is_removed(), "{ty} has no layout");
                continue;
            };
            assert_eq!(LAYOUTS.iter().filter(|x| x.ty == ty).count(), 1, "{ty}");
            assert_eq!(l.block_elems as u64, ty.block_size(), "{ty}");
            assert_eq!(l.block_bytes as u64, ty.type_size(), "{ty}");
            let mut end = 0;
            for fd in l.fields {
                assert!(matches!(fd.width, 2 | 4 | 8), "{ty}");
                assert!(
                    usize::from(fd.offset) >= end,
                    "{ty}: fields overlap or are unordered"
                );
                end = usize::from(fd.offset) + usize::from(fd.width) * usize::from(fd.count);
                assert!(end <= l.block_bytes, "{ty}: field past the block");
            }
        }
    }
}
