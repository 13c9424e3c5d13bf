//! The ggml tensor type table: the spec's 43 ids with their names, block sizes and bytes per block.
//!
//! The table is the single source of truth for tensor sizes in the whole crate: the reader sizes
//! tensors with it, the codecs in [`crate::quant`] take their block layouts' sizes and every
//! loop's block size from it (as constants), and the writer computes offsets from it.
#![forbid(unsafe_code)]

use std::fmt;
use std::str::FromStr;

/// A ggml tensor type, as the spec's `ggml_type` enum numbers it (ids 0..=42).
///
/// Ids that ggml removed (4, 5, 31-33, 36-38) are kept as variants so that errors can name them and
/// say why they are gone; [`GgmlType::is_removed`] tells them apart and they have no block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
#[allow(non_camel_case_types)]
pub enum GgmlType {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q4_2 = 4,
    Q4_3 = 5,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    Q4_0_4_4 = 31,
    Q4_0_4_8 = 32,
    Q4_0_8_8 = 33,
    TQ1_0 = 34,
    TQ2_0 = 35,
    IQ4_NL_4_4 = 36,
    IQ4_NL_4_8 = 37,
    IQ4_NL_8_8 = 38,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
}

/// One row of the table: name as the spec spells it, elements per block, bytes per block.
/// Removed ids have 0 for both, as in ggml and the spec.
struct TypeInfo {
    ty: GgmlType,
    name: &'static str,
    block_size: u32,
    type_size: u32,
}

macro_rules! table {
    ($($ty:ident $name:literal $blck:literal $size:literal;)*) => {
        const TABLE: &[TypeInfo] = &[
            $(TypeInfo { ty: GgmlType::$ty, name: $name, block_size: $blck, type_size: $size },)*
        ];
    };
}

// Transcribed from the spec's `num_elements_per_block` and `len_block` arrays (gguf.ksy).
table! {
    F32 "f32" 1 4;
    F16 "f16" 1 2;
    Q4_0 "q4_0" 32 18;
    Q4_1 "q4_1" 32 20;
    Q4_2 "q4_2" 0 0;
    Q4_3 "q4_3" 0 0;
    Q5_0 "q5_0" 32 22;
    Q5_1 "q5_1" 32 24;
    Q8_0 "q8_0" 32 34;
    Q8_1 "q8_1" 32 36;
    Q2_K "q2_k" 256 84;
    Q3_K "q3_k" 256 110;
    Q4_K "q4_k" 256 144;
    Q5_K "q5_k" 256 176;
    Q6_K "q6_k" 256 210;
    Q8_K "q8_k" 256 292;
    IQ2_XXS "iq2_xxs" 256 66;
    IQ2_XS "iq2_xs" 256 74;
    IQ3_XXS "iq3_xxs" 256 98;
    IQ1_S "iq1_s" 256 50;
    IQ4_NL "iq4_nl" 32 18;
    IQ3_S "iq3_s" 256 110;
    IQ2_S "iq2_s" 256 82;
    IQ4_XS "iq4_xs" 256 136;
    I8 "i8" 1 1;
    I16 "i16" 1 2;
    I32 "i32" 1 4;
    I64 "i64" 1 8;
    F64 "f64" 1 8;
    IQ1_M "iq1_m" 256 56;
    BF16 "bf16" 1 2;
    Q4_0_4_4 "q4_0_4_4" 0 0;
    Q4_0_4_8 "q4_0_4_8" 0 0;
    Q4_0_8_8 "q4_0_8_8" 0 0;
    TQ1_0 "tq1_0" 256 54;
    TQ2_0 "tq2_0" 256 66;
    IQ4_NL_4_4 "iq4_nl_4_4" 0 0;
    IQ4_NL_4_8 "iq4_nl_4_8" 0 0;
    IQ4_NL_8_8 "iq4_nl_8_8" 0 0;
    MXFP4 "mxfp4" 32 17;
    NVFP4 "nvfp4" 64 36;
    Q1_0 "q1_0" 128 18;
    Q2_0 "q2_0" 64 18;
}

impl GgmlType {
    /// Number of ids in the spec's table (`type < 43`).
    pub const COUNT: u32 = 43;

    /// Every id of the table, removed ones included, in id order.
    pub fn all() -> impl Iterator<Item = GgmlType> {
        TABLE.iter().map(|t| t.ty)
    }

    /// Every type a tensor may have (the ids ggml still reads), in id order.
    pub fn supported() -> impl Iterator<Item = GgmlType> {
        Self::all().filter(|t| !t.is_removed())
    }

    /// The type with this id, removed ones included; `None` for ids 43 and above.
    #[inline]
    pub fn from_id(id: u32) -> Option<GgmlType> {
        TABLE.get(id as usize).map(|t| t.ty)
    }

    /// The type with this name as the spec spells it (case-insensitive: `Q4_K` and `q4_k` both
    /// work), removed ones included: a type named to read a table. A type asked for by a user
    /// (to write, convert or quantize to) is [`GgmlType::parse`]'s.
    pub fn from_name(name: &str) -> Option<GgmlType> {
        TABLE
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name))
            .map(|t| t.ty)
    }

    /// The type a tensor may have that `name` names, in any case (`q4_K`, `Q8_0`, `bf16`): the
    /// one parser of type names that commands, options and bindings take. An id ggml removed is
    /// refused with the reason the table gives ([`TypeNameError::Removed`]).
    pub fn parse(name: &str) -> Result<GgmlType, TypeNameError> {
        let ty = GgmlType::from_name(name).ok_or_else(|| TypeNameError::Unknown {
            name: name.to_string(),
        })?;
        match ty.removal_note() {
            Some(note) => Err(TypeNameError::Removed {
                name: name.to_string(),
                ty,
                note,
            }),
            None => Ok(ty),
        }
    }

    #[inline]
    const fn info(self) -> &'static TypeInfo {
        &TABLE[self as usize]
    }

    /// The numeric id stored in files.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// Lower-case name as the spec's `ggml_type` enum spells it (`q4_k`, `iq2_xxs`, `bf16`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Elements per block (`blck_size` in ggml); 0 for removed ids. A `const fn`, so code that
    /// needs a block size as a constant (the codecs) reads it from this table too.
    #[inline]
    pub const fn block_size(self) -> u64 {
        self.info().block_size as u64
    }

    /// Bytes per block (`type_size` in ggml); 0 for removed ids. A `const fn`, like
    /// [`GgmlType::block_size`].
    #[inline]
    pub const fn type_size(self) -> u64 {
        self.info().type_size as u64
    }

    /// True for the ids ggml no longer reads (4, 5, 31-33, 36-38).
    #[inline]
    pub fn is_removed(self) -> bool {
        self.info().block_size == 0
    }

    /// True for block-quantized types (block size above 1).
    pub fn is_quantized(self) -> bool {
        self.info().block_size > 1
    }

    /// True for the plain integer types (i8, i16, i32, i64).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            GgmlType::I8 | GgmlType::I16 | GgmlType::I32 | GgmlType::I64
        )
    }

    /// Why a removed id is gone, as the spec documents it; `None` for types still in use.
    pub fn removal_note(self) -> Option<&'static str> {
        Some(match self {
            GgmlType::Q4_2 => "removed from ggml in May 2023, before GGUF was introduced",
            GgmlType::Q4_3 => "removed from ggml in April 2023, before GGUF was introduced",
            GgmlType::Q4_0_4_4 | GgmlType::Q4_0_4_8 | GgmlType::Q4_0_8_8 => {
                "removed from ggml in December 2024 in favour of repacking q4_0 at load time"
            }
            GgmlType::IQ4_NL_4_4 => {
                "supported by ggml only from November to December 2024 for in-memory repacking, never written to files"
            }
            GgmlType::IQ4_NL_4_8 | GgmlType::IQ4_NL_8_8 => {
                "reserved by ggml but never supported"
            }
            _ => return None,
        })
    }

    /// Bytes taken by `n_elements` elements of this type, with exact arithmetic.
    ///
    /// `None` when `n_elements` is not a whole number of blocks, the type is removed, or the
    /// result overflows `u64`.
    #[inline(always)]
    pub fn bytes_for(self, n_elements: u64) -> Option<u64> {
        let blck = self.block_size();
        // every block size in the table is a power of two (tested), so shifts replace divisions
        if blck == 0 || n_elements & (blck - 1) != 0 {
            return None;
        }
        (n_elements >> blck.trailing_zeros()).checked_mul(self.type_size())
    }
}

impl FromStr for GgmlType {
    type Err = TypeNameError;

    /// [`GgmlType::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GgmlType::parse(s)
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why [`GgmlType::parse`] refused a name: no type has it, or it names an id ggml removed (with
/// the reason the type table gives).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TypeNameError {
    /// No ggml type has this name.
    #[error("'{name}' is not a ggml tensor type (q4_0, q8_0, q4_k, f16, ...)")]
    Unknown {
        /// The text given.
        name: String,
    },
    /// The name of an id ggml removed, which no tensor may have.
    #[error("'{name}' is ggml type {} ({}), which tensors can no longer have: {note}", ty.id(), ty.name())]
    Removed {
        /// The text given.
        name: String,
        /// The removed type.
        ty: GgmlType,
        /// Why it is gone ([`GgmlType::removal_note`]).
        note: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_id_order_and_complete() {
        assert_eq!(TABLE.len(), GgmlType::COUNT as usize);
        for (i, t) in TABLE.iter().enumerate() {
            assert_eq!(t.ty as usize, i, "{} out of order", t.name);
            assert_eq!(GgmlType::from_id(i as u32), Some(t.ty));
            assert_eq!(GgmlType::from_name(t.name), Some(t.ty));
        }
        assert_eq!(GgmlType::from_id(43), None);
    }

    #[test]
    fn spec_arrays_match() {
        // The two arrays of gguf.ksy, verbatim.
        let blck: [u64; 43] = [
            1, 1, 32, 32, 0, 0, 32, 32, 32, 32, 256, 256, 256, 256, 256, 256, 256, 256, 256, 256,
            32, 256, 256, 256, 1, 1, 1, 1, 1, 256, 1, 0, 0, 0, 256, 256, 0, 0, 0, 32, 64, 128, 64,
        ];
        let size: [u64; 43] = [
            4, 2, 18, 20, 0, 0, 22, 24, 34, 36, 84, 110, 144, 176, 210, 292, 66, 74, 98, 50, 18,
            110, 82, 136, 1, 2, 4, 8, 8, 56, 2, 0, 0, 0, 54, 66, 0, 0, 0, 17, 36, 18, 18,
        ];
        for t in GgmlType::all() {
            assert_eq!(t.block_size(), blck[t.id() as usize], "{t}");
            assert_eq!(t.type_size(), size[t.id() as usize], "{t}");
            assert_eq!(t.is_removed(), t.removal_note().is_some(), "{t}");
            assert!(t.is_removed() || t.block_size().is_power_of_two(), "{t}");
        }
        assert_eq!(GgmlType::supported().count(), 35);
    }

    #[test]
    fn bytes_for_is_exact() {
        assert_eq!(GgmlType::Q4_K.bytes_for(512), Some(288));
        assert_eq!(GgmlType::Q4_K.bytes_for(100), None);
        assert_eq!(GgmlType::Q4_2.bytes_for(32), None);
        assert_eq!(GgmlType::F32.bytes_for(u64::MAX / 2), None);
    }

    #[test]
    fn parse_takes_any_case_and_refuses_removed_ids_with_the_reason() {
        assert_eq!(GgmlType::parse("Q4_k"), Ok(GgmlType::Q4_K));
        assert_eq!("bf16".parse::<GgmlType>(), Ok(GgmlType::BF16));
        assert_eq!(
            GgmlType::parse("q9"),
            Err(TypeNameError::Unknown { name: "q9".into() })
        );
        for t in GgmlType::all() {
            match GgmlType::parse(&t.name().to_ascii_uppercase()) {
                Ok(p) => assert_eq!(p, t),
                Err(TypeNameError::Removed { ty, note, .. }) => {
                    assert_eq!(ty, t);
                    assert_eq!(Some(note), t.removal_note());
                }
                Err(e) => panic!("{t}: {e}"),
            }
        }
        let e = GgmlType::parse("q4_0_4_4").unwrap_err().to_string();
        assert_eq!(
            e,
            "'q4_0_4_4' is ggml type 31 (q4_0_4_4), which tensors can no longer have: \
             removed from ggml in December 2024 in favour of repacking q4_0 at load time"
        );
    }
}
