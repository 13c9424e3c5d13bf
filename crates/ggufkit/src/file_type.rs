//! llama.cpp's file types (`llama_ftype`): the number `general.file_type` stores, what
//! `llama-quantize` was asked for, and the name llama.cpp prints for it when it loads the file.
//! One table holds the numbers and names; the quantizer's presets (`quantize/preset.rs`) and the
//! summary read them from here.
#![forbid(unsafe_code)]

use std::fmt;

use crate::Gguf;

/// A llama.cpp file type (`llama_ftype`): what a llama-quantize preset asks for and what
/// `general.file_type` declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum Ftype {
    AllF32,
    F16,
    Q4_0,
    Q4_1,
    Q8_0,
    Q5_0,
    Q5_1,
    Q2_K,
    Q3_K_S,
    Q3_K_M,
    Q3_K_L,
    Q4_K_S,
    Q4_K_M,
    Q5_K_S,
    Q5_K_M,
    Q6_K,
    IQ2_XXS,
    IQ2_XS,
    Q2_K_S,
    IQ3_XS,
    IQ3_XXS,
    IQ1_S,
    IQ4_NL,
    IQ3_S,
    IQ3_M,
    IQ2_S,
    IQ2_M,
    IQ4_XS,
    IQ1_M,
    BF16,
    TQ1_0,
    TQ2_0,
    MXFP4_MOE,
    NVFP4,
    Q1_0,
    Q2_0,
}

/// Every file type with its `llama_ftype` number and llama.cpp's name for it, in the enum's order.
const TABLE: [(Ftype, u32, &str); 36] = [
    (Ftype::AllF32, 0, "all F32"),
    (Ftype::F16, 1, "F16"),
    (Ftype::Q4_0, 2, "Q4_0"),
    (Ftype::Q4_1, 3, "Q4_1"),
    (Ftype::Q8_0, 7, "Q8_0"),
    (Ftype::Q5_0, 8, "Q5_0"),
    (Ftype::Q5_1, 9, "Q5_1"),
    (Ftype::Q2_K, 10, "Q2_K - Medium"),
    (Ftype::Q3_K_S, 11, "Q3_K - Small"),
    (Ftype::Q3_K_M, 12, "Q3_K - Medium"),
    (Ftype::Q3_K_L, 13, "Q3_K - Large"),
    (Ftype::Q4_K_S, 14, "Q4_K - Small"),
    (Ftype::Q4_K_M, 15, "Q4_K - Medium"),
    (Ftype::Q5_K_S, 16, "Q5_K - Small"),
    (Ftype::Q5_K_M, 17, "Q5_K - Medium"),
    (Ftype::Q6_K, 18, "Q6_K"),
    (Ftype::IQ2_XXS, 19, "IQ2_XXS - 2.0625 bpw"),
    (Ftype::IQ2_XS, 20, "IQ2_XS - 2.3125 bpw"),
    (Ftype::Q2_K_S, 21, "Q2_K - Small"),
    (Ftype::IQ3_XS, 22, "IQ3_XS - 3.3 bpw"),
    (Ftype::IQ3_XXS, 23, "IQ3_XXS - 3.0625 bpw"),
    (Ftype::IQ1_S, 24, "IQ1_S - 1.5625 bpw"),
    (Ftype::IQ4_NL, 25, "IQ4_NL - 4.5 bpw"),
    (Ftype::IQ3_S, 26, "IQ3_S - 3.4375 bpw"),
    (Ftype::IQ3_M, 27, "IQ3_S mix - 3.66 bpw"),
    (Ftype::IQ2_S, 28, "IQ2_S - 2.5 bpw"),
    (Ftype::IQ2_M, 29, "IQ2_M - 2.7 bpw"),
    (Ftype::IQ4_XS, 30, "IQ4_XS - 4.25 bpw"),
    (Ftype::IQ1_M, 31, "IQ1_M - 1.75 bpw"),
    (Ftype::BF16, 32, "BF16"),
    (Ftype::TQ1_0, 36, "TQ1_0 - 1.69 bpw ternary"),
    (Ftype::TQ2_0, 37, "TQ2_0 - 2.06 bpw ternary"),
    (Ftype::MXFP4_MOE, 38, "MXFP4 MoE"),
    (Ftype::NVFP4, 39, "NVFP4"),
    (Ftype::Q1_0, 40, "Q1_0"),
    (Ftype::Q2_0, 41, "Q2_0"),
];

impl Ftype {
    /// Every file type, in `llama_ftype` order.
    pub const ALL: [Ftype; 36] = {
        let mut all = [Ftype::AllF32; 36];
        let mut i = 0;
        while i < all.len() {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    /// The `llama_ftype` number, as `general.file_type` stores it.
    pub fn id(self) -> u32 {
        TABLE[self as usize].1
    }

    /// llama.cpp's name (`Q4_K - Medium`; `mostly F16` is `F16`).
    pub fn name(self) -> &'static str {
        TABLE[self as usize].2
    }

    /// The file type with this `llama_ftype` number.
    pub fn from_id(id: u32) -> Option<Ftype> {
        TABLE.iter().find(|row| row.1 == id).map(|row| row.0)
    }
}

/// A `general.file_type` value: an id of llama.cpp's `llama_ftype`, possibly with the
/// [`FileType::GUESSED`] flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileType(pub u32);

impl FileType {
    /// The flag llama.cpp adds when the type was guessed from the tensors, not read from the file.
    pub const GUESSED: u32 = 1024;

    /// The file type a file declares, when `general.file_type` is an integer that fits a `u32`.
    pub fn of(g: &Gguf<'_>) -> Option<FileType> {
        let id = g.get_u64("general.file_type")?;
        u32::try_from(id).ok().map(FileType)
    }

    /// The id without the [`FileType::GUESSED`] flag.
    pub fn id(self) -> u32 {
        self.0 & !Self::GUESSED
    }

    /// Whether the [`FileType::GUESSED`] flag is set.
    pub fn is_guessed(self) -> bool {
        self.0 & Self::GUESSED != 0
    }

    /// llama.cpp's name of the id (`Q4_K - Medium`, `mostly F16` is `F16`), `None` for an id it
    /// does not know (removed ones included).
    pub fn name(self) -> Option<&'static str> {
        Ftype::from_id(self.id()).map(Ftype::name)
    }
}

/// The name exactly as llama.cpp prints it: `(guessed) ` first when guessed, and
/// `unknown, may not work` for an id it does not know.
impl fmt::Display for FileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_guessed() {
            f.write_str("(guessed) ")?;
        }
        f.write_str(self.name().unwrap_or("unknown, may not work"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_llama_cpp() {
        assert_eq!(FileType(15).to_string(), "Q4_K - Medium");
        assert_eq!(FileType(1).to_string(), "F16");
        assert_eq!(FileType(0).name(), Some("all F32"));
        assert_eq!(FileType(41).name(), Some("Q2_0"));
        assert_eq!(FileType(1024 + 7).to_string(), "(guessed) Q8_0");
        assert!(FileType(1024 + 7).is_guessed());
        assert_eq!(FileType(1024 + 7).id(), 7);
        // removed (Q4_2, Q4_3, the Q4_0 repacks) and unknown ids
        for id in [4, 5, 6, 33, 34, 35, 42, 1000] {
            assert_eq!(FileType(id).name(), None, "{id}");
        }
        assert_eq!(FileType(5).to_string(), "unknown, may not work");
    }

    #[test]
    fn the_table_is_in_enum_order() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.0 as usize, i, "{:?}", row.0);
            assert_eq!(Ftype::from_id(row.1), Some(row.0));
        }
    }
}
