//! `general.file_type`: the llama.cpp file type a file declares (`LLAMA_FTYPE_*`, what
//! `llama-quantize` was asked for), named as llama.cpp names it when it loads the file.
#![forbid(unsafe_code)]

use std::fmt;

use crate::Gguf;

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
        Some(match self.id() {
            0 => "all F32",
            1 => "F16",
            2 => "Q4_0",
            3 => "Q4_1",
            7 => "Q8_0",
            8 => "Q5_0",
            9 => "Q5_1",
            10 => "Q2_K - Medium",
            11 => "Q3_K - Small",
            12 => "Q3_K - Medium",
            13 => "Q3_K - Large",
            14 => "Q4_K - Small",
            15 => "Q4_K - Medium",
            16 => "Q5_K - Small",
            17 => "Q5_K - Medium",
            18 => "Q6_K",
            19 => "IQ2_XXS - 2.0625 bpw",
            20 => "IQ2_XS - 2.3125 bpw",
            21 => "Q2_K - Small",
            22 => "IQ3_XS - 3.3 bpw",
            23 => "IQ3_XXS - 3.0625 bpw",
            24 => "IQ1_S - 1.5625 bpw",
            25 => "IQ4_NL - 4.5 bpw",
            26 => "IQ3_S - 3.4375 bpw",
            27 => "IQ3_S mix - 3.66 bpw",
            28 => "IQ2_S - 2.5 bpw",
            29 => "IQ2_M - 2.7 bpw",
            30 => "IQ4_XS - 4.25 bpw",
            31 => "IQ1_M - 1.75 bpw",
            32 => "BF16",
            36 => "TQ1_0 - 1.69 bpw ternary",
            37 => "TQ2_0 - 2.06 bpw ternary",
            38 => "MXFP4 MoE",
            39 => "NVFP4",
            40 => "Q1_0",
            41 => "Q2_0",
            _ => return None,
        })
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
}
