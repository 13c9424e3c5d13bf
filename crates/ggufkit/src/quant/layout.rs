//! Every block layout, defined once: where the multi-byte fields sit inside a block, with the
//! block's elements and bytes taken from the type table ([`GgmlType::block_size`],
//! [`GgmlType::type_size`]) for the codecs to use as constants (`block::Q4_K.bytes`).
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
//! the byte-order converter use; a unit test checks that every field lies inside its block.

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

/// The elements and bytes of one block of a type, read from [`GgmlType`]'s table at compile
/// time: the codecs size their loops, block slices and buffers with these constants, so no block
/// size is written anywhere but that table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// Elements per block.
    pub(crate) elems: usize,
    /// Bytes per block.
    pub(crate) bytes: usize,
}

impl Block {
    /// The block of `ty` (0 elements and 0 bytes for the removed ids).
    pub(crate) const fn of(ty: GgmlType) -> Block {
        Block {
            elems: ty.block_size() as usize,
            bytes: ty.type_size() as usize,
        }
    }
}

macro_rules! layouts {
    ($($ty:ident [$($o:literal $w:literal $c:literal),*];)*) => {
        static LAYOUTS: &[Layout] = &[
            $(Layout {
                ty: GgmlType::$ty,
                block_elems: block::$ty.elems,
                block_bytes: block::$ty.bytes,
                fields: &[$(f($o, $w, $c)),*],
            },)*
        ];

        /// The block of every type with a layout, by the type's name (`block::Q4_K.bytes`).
        #[allow(dead_code)]
        pub(crate) mod block {
            use super::Block;
            use crate::types::GgmlType;
            $(pub(crate) const $ty: Block = Block::of(GgmlType::$ty);)*
        }
    };
}

/// Elements of a k-quant super-block (ggml's `QK_K`), the block of the k-quants, the i-quants
/// but iq4_nl, and the ternary types.
pub(crate) const QK_K: usize = block::Q4_K.elems;

// type  [offset width count, ...]        what the fields are (sizes: the type table)
layouts! {
    F32     [0 4 1];
    F16     [0 2 1];
    BF16    [0 2 1];
    F64     [0 8 1];
    I8      [];
    I16     [0 2 1];
    I32     [0 4 1];
    I64     [0 8 1];
    Q4_0    [0 2 1];                    // d
    Q4_1    [0 2 2];                    // d, m
    Q5_0    [0 2 1, 2 4 1];             // d, qh
    Q5_1    [0 2 2, 4 4 1];             // d, m, qh
    Q8_0    [0 2 1];                    // d
    Q8_1    [0 2 2];                    // d, s
    Q2_K    [80 2 2];                   // d, dmin after scales[16], qs[64]
    Q3_K    [108 2 1];                  // d after hmask[32], qs[64], scales[12]
    Q4_K    [0 2 2];                    // d, dmin
    Q5_K    [0 2 2];                    // d, dmin
    Q6_K    [208 2 1];                  // d after ql[128], qh[64], scales[16]
    Q8_K    [0 4 1, 260 2 16];          // f32 d, qs[256], i16 bsums[16]
    IQ2_XXS [0 2 1, 6 4 1, 14 4 1, 22 4 1, 30 4 1, 38 4 1, 46 4 1, 54 4 1, 62 4 1];
                                        // d; per 32: 4 grid bytes, u32 scale+signs
    IQ2_XS  [0 2 1, 2 2 32];            // d, u16 qs[32], scales[8]
    IQ2_S   [0 2 1];                    // d, qs[64], qh[8], scales[8]
    IQ3_XXS [0 2 1, 66 4 8];            // d, grid bytes[64], u32 scale+signs[8]
    IQ3_S   [0 2 1];                    // d, qs[64], qh[8], signs[32], scales[4]
    IQ1_S   [0 2 1, 34 2 8];            // d, qs[32], u16 qh[8]
    IQ1_M   [48 2 4];                   // qs[32], qh[16], u16 scales[4]
    IQ4_NL  [0 2 1];                    // d
    IQ4_XS  [0 2 2];                    // d, u16 scales_h, scales_l[4], qs[128]
    TQ1_0   [52 2 1];                   // d after qs[48], qh[4]
    TQ2_0   [64 2 1];                   // d after qs[64]
    MXFP4   [];                         // e8m0 byte, qs[16]
    NVFP4   [];                         // ue4m3 bytes[4], qs[32]
    Q1_0    [0 2 1];                    // d
    Q2_0    [0 2 1];                    // d
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
