//! llama-quantize's presets: every name `llama-quantize` accepts, the file type (`crate::file_type`)
//! it writes as `general.file_type`, and the tensor type a preset starts each tensor from.
#![forbid(unsafe_code)]

use std::fmt;

pub use crate::file_type::Ftype;
use crate::types::GgmlType;

impl Ftype {
    /// The tensor type every quantizable tensor starts from before the preset's rules
    /// (`llama_ftype_get_default_type`).
    pub fn default_type(self) -> GgmlType {
        use Ftype as F;
        use GgmlType as T;
        match self {
            F::AllF32 => T::F32,
            F::F16 => T::F16,
            F::BF16 => T::BF16,
            F::Q4_0 => T::Q4_0,
            F::Q4_1 => T::Q4_1,
            F::Q5_0 => T::Q5_0,
            F::Q5_1 => T::Q5_1,
            F::Q8_0 => T::Q8_0,
            F::Q1_0 => T::Q1_0,
            F::Q2_0 => T::Q2_0,
            F::MXFP4_MOE => T::MXFP4,
            F::NVFP4 => T::NVFP4,
            F::Q2_K | F::Q2_K_S => T::Q2_K,
            F::IQ3_XS => T::IQ3_S,
            F::Q3_K_S | F::Q3_K_M | F::Q3_K_L => T::Q3_K,
            F::Q4_K_S | F::Q4_K_M => T::Q4_K,
            F::Q5_K_S | F::Q5_K_M => T::Q5_K,
            F::Q6_K => T::Q6_K,
            F::TQ1_0 => T::TQ1_0,
            F::TQ2_0 => T::TQ2_0,
            F::IQ2_XXS => T::IQ2_XXS,
            F::IQ2_XS | F::IQ2_S => T::IQ2_XS,
            F::IQ2_M => T::IQ2_S,
            F::IQ3_XXS => T::IQ3_XXS,
            F::IQ1_S => T::IQ1_S,
            F::IQ1_M => T::IQ1_M,
            F::IQ4_NL => T::IQ4_NL,
            F::IQ4_XS => T::IQ4_XS,
            F::IQ3_S | F::IQ3_M => T::IQ3_S,
        }
    }

    /// The file type a loader assumes for a file without `general.file_type`, from its most
    /// common tensor type (llama.cpp adds [`crate::file_type::FileType::GUESSED`] to it).
    pub fn guess_from(ty: GgmlType) -> Ftype {
        use Ftype as F;
        use GgmlType as T;
        match ty {
            T::F16 => F::F16,
            T::BF16 => F::BF16,
            T::Q4_0 => F::Q4_0,
            T::Q4_1 => F::Q4_1,
            T::Q5_0 => F::Q5_0,
            T::Q5_1 => F::Q5_1,
            T::Q8_0 => F::Q8_0,
            T::Q2_K => F::Q2_K,
            T::Q3_K => F::Q3_K_M,
            T::Q4_K => F::Q4_K_M,
            T::Q5_K => F::Q5_K_M,
            T::Q6_K => F::Q6_K,
            T::TQ1_0 => F::TQ1_0,
            T::TQ2_0 => F::TQ2_0,
            T::IQ2_XXS => F::IQ2_XXS,
            T::IQ2_XS => F::IQ2_XS,
            T::IQ2_S => F::IQ2_S,
            T::IQ3_XXS => F::IQ3_XXS,
            T::IQ1_S => F::IQ1_S,
            T::IQ1_M => F::IQ1_M,
            T::IQ4_NL => F::IQ4_NL,
            T::IQ4_XS => F::IQ4_XS,
            T::IQ3_S => F::IQ3_S,
            T::MXFP4 => F::MXFP4_MOE,
            T::NVFP4 => F::NVFP4,
            T::Q1_0 => F::Q1_0,
            T::Q2_0 => F::Q2_0,
            _ => F::AllF32,
        }
    }
}

/// A preset as `llama-quantize` names it on its command line: a file type, plus `COPY` (copy
/// every tensor as it is, keeping the input's file type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Preset {
    /// The name as llama-quantize spells it (`Q4_K_M`, `Q3_K` for the alias, `COPY`).
    pub name: &'static str,
    /// The file type it asks for.
    pub ftype: Ftype,
    /// `COPY`: nothing is quantized.
    pub only_copy: bool,
}

/// llama-quantize's table of presets, in its order (which decides the name a number maps to:
/// 12 is `Q3_K`, the alias listed before `Q3_K_M`; 0 is `F32`, listed before `COPY`).
const PRESETS: &[(&str, Ftype)] = &[
    ("Q1_0", Ftype::Q1_0),
    ("Q2_0", Ftype::Q2_0),
    ("Q4_0", Ftype::Q4_0),
    ("Q4_1", Ftype::Q4_1),
    ("MXFP4_MOE", Ftype::MXFP4_MOE),
    ("Q5_0", Ftype::Q5_0),
    ("Q5_1", Ftype::Q5_1),
    ("IQ2_XXS", Ftype::IQ2_XXS),
    ("IQ2_XS", Ftype::IQ2_XS),
    ("IQ2_S", Ftype::IQ2_S),
    ("IQ2_M", Ftype::IQ2_M),
    ("IQ1_S", Ftype::IQ1_S),
    ("IQ1_M", Ftype::IQ1_M),
    ("TQ1_0", Ftype::TQ1_0),
    ("TQ2_0", Ftype::TQ2_0),
    ("Q2_K", Ftype::Q2_K),
    ("Q2_K_S", Ftype::Q2_K_S),
    ("IQ3_XXS", Ftype::IQ3_XXS),
    ("IQ3_S", Ftype::IQ3_S),
    ("IQ3_M", Ftype::IQ3_M),
    ("Q3_K", Ftype::Q3_K_M),
    ("IQ3_XS", Ftype::IQ3_XS),
    ("Q3_K_S", Ftype::Q3_K_S),
    ("Q3_K_M", Ftype::Q3_K_M),
    ("Q3_K_L", Ftype::Q3_K_L),
    ("IQ4_NL", Ftype::IQ4_NL),
    ("IQ4_XS", Ftype::IQ4_XS),
    ("Q4_K", Ftype::Q4_K_M),
    ("Q4_K_S", Ftype::Q4_K_S),
    ("Q4_K_M", Ftype::Q4_K_M),
    ("Q5_K", Ftype::Q5_K_M),
    ("Q5_K_S", Ftype::Q5_K_S),
    ("Q5_K_M", Ftype::Q5_K_M),
    ("Q6_K", Ftype::Q6_K),
    ("Q8_0", Ftype::Q8_0),
    ("F16", Ftype::F16),
    ("BF16", Ftype::BF16),
    ("F32", Ftype::AllF32),
    ("COPY", Ftype::AllF32),
];

impl Preset {
    /// Every preset, in llama-quantize's order.
    pub fn all() -> impl Iterator<Item = Preset> {
        PRESETS.iter().map(|&(name, ftype)| Preset {
            name,
            ftype,
            only_copy: name == "COPY",
        })
    }

    /// The preset named `s` (any case: `q4_k_m`), or numbered `s` (its `llama_ftype`: `15` is
    /// `Q4_K`, the first name listed for 15), as llama-quantize parses its type argument.
    pub fn parse(s: &str) -> Option<Preset> {
        if let Some(p) = Preset::all().find(|p| p.name.eq_ignore_ascii_case(s)) {
            return Some(p);
        }
        let id: u32 = s.trim().parse().ok()?;
        Preset::all().find(|p| p.ftype.id() == id)
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_numbers_and_aliases() {
        let issue = [
            "Q4_0",
            "Q4_1",
            "Q5_0",
            "Q5_1",
            "Q8_0",
            "Q2_K",
            "Q2_K_S",
            "Q3_K_S",
            "Q3_K_M",
            "Q3_K_L",
            "Q4_K_S",
            "Q4_K_M",
            "Q5_K_S",
            "Q5_K_M",
            "Q6_K",
            "IQ1_S",
            "IQ1_M",
            "IQ2_XXS",
            "IQ2_XS",
            "IQ2_S",
            "IQ2_M",
            "IQ3_XXS",
            "IQ3_XS",
            "IQ3_S",
            "IQ3_M",
            "IQ4_NL",
            "IQ4_XS",
            "TQ1_0",
            "TQ2_0",
            "MXFP4_MOE",
            "Q1_0",
            "Q2_0",
            "F16",
            "BF16",
            "F32",
            "COPY",
            "Q3_K",
            "Q4_K",
            "Q5_K",
        ];
        for name in issue {
            let p = Preset::parse(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(p.name, name);
            assert_eq!(Preset::parse(&name.to_lowercase()), Some(p));
        }
        assert_eq!(Preset::parse("Q3_K").unwrap().ftype, Ftype::Q3_K_M);
        assert_eq!(Preset::parse("Q4_K").unwrap().ftype, Ftype::Q4_K_M);
        assert_eq!(Preset::parse("Q5_K").unwrap().ftype, Ftype::Q5_K_M);
        assert_eq!(Preset::parse("15").unwrap().name, "Q4_K");
        assert_eq!(Preset::parse("7").unwrap().name, "Q8_0");
        assert_eq!(Preset::parse("0").unwrap().name, "F32");
        assert!(!Preset::parse("0").unwrap().only_copy);
        assert!(Preset::parse("copy").unwrap().only_copy);
        assert_eq!(Preset::parse("30").unwrap().ftype, Ftype::IQ4_XS);
        assert_eq!(Preset::parse("4"), None);
        assert_eq!(Preset::parse("Q4_K_X"), None);
        // the numbers agree with the file-type names the summary prints
        for f in Ftype::ALL {
            assert!(crate::file_type::FileType(f.id()).name().is_some(), "{f:?}");
            assert_eq!(Ftype::from_id(f.id()), Some(f));
        }
    }

    #[test]
    fn default_types() {
        assert_eq!(Ftype::IQ2_S.default_type(), GgmlType::IQ2_XS);
        assert_eq!(Ftype::IQ2_M.default_type(), GgmlType::IQ2_S);
        assert_eq!(Ftype::IQ3_XS.default_type(), GgmlType::IQ3_S);
        assert_eq!(Ftype::Q2_K_S.default_type(), GgmlType::Q2_K);
        assert_eq!(Ftype::MXFP4_MOE.default_type(), GgmlType::MXFP4);
    }
}
