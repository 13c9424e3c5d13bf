//! Tensor type ids that forks of ggml write and the spec does not know: the one table that names
//! them, so that a file holding them can say what it is.
//!
//! Only facts are kept: the id, the fork's own name for the type, and the fork. Nothing here sizes
//! or decodes such a tensor; the reader takes its size from where the next tensor's data starts.
#![forbid(unsafe_code)]

/// A tensor type of a fork: its id in files, its name as the fork spells it, and the fork.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkType {
    /// The id stored in the tensor info.
    pub id: u32,
    /// The fork's name for it, lower case as ggml's type names are (`iq2_kt`).
    pub name: &'static str,
    /// Where it comes from (`ik_llama.cpp`), with a word when the fork itself withdrew it.
    pub origin: &'static str,
}

const IK: &str = "ik_llama.cpp";
const IK_OR_PRISM: &str = "ik_llama.cpp, withdrawn, or Prism";
const TURBO: &str = "TurboQuant forks, each numbering its types differently";
const UNSLOTH: &str = "unsloth's experiments";

/// The ids TurboQuant's forks give their types (`tq3_1s`, `tq4_1s`, `turbo2_0`..`turbo4_0`), each
/// fork in its own order. 41 and 42 are ggml's `q1_0` and `q2_0`: a tensor of those ids whose
/// size contradicts the file is a fork's, which a permissive reading sizes from the next offset.
pub const REUSED_IDS: std::ops::RangeInclusive<u32> = 41..=47;

macro_rules! forks {
    ($($id:literal $name:literal $origin:expr;)*) => {
        const FORKS: &[ForkType] = &[$(ForkType { id: $id, name: $name, origin: $origin },)*];
    };
}

// ik_llama.cpp (github.com/ikawrakow/ik_llama.cpp): the `ggml_type` enum of its
// `ggml/include/ggml.h` (ids 98-151 and 202-399; 142 and 143 are marked deprecated there), and
// ids 152-158 (iq5_ks, the trellis types iq1_kt to iq4_kt, iq3_ks, iq2_kl), which later versions
// of that enum added, as readers of the fork's files list them. Prism writes its PQ2_0 and
// PTQ1_0 as 142 and 143, the ids ik_llama.cpp withdrew; unsloth's experimental IQ1_XXXS is 66.
// TurboQuant's forks put their five types at 43-47 (and some at 41-42, over ggml's own), in an
// order that differs from fork to fork (the fork's `ggml.h` in each): only the family is named.
// In id order; a test checks it.
forks! {
    43 "turboquant" TURBO;
    44 "turboquant" TURBO;
    45 "turboquant" TURBO;
    46 "turboquant" TURBO;
    47 "turboquant" TURBO;
    66 "iq1_xxxs" UNSLOTH;
    98 "q8_0_x4" IK;
    99 "q8_1_x4" IK;
    133 "q6_0" IK;
    134 "iq1_bn" IK;
    135 "iq2_bn" IK;
    136 "q8_k64" IK;
    137 "iq2_k" IK;
    138 "iq3_k" IK;
    139 "iq4_k" IK;
    140 "iq5_k" IK;
    141 "iq6_k" IK;
    142 "iq2_tn or pq2_0" IK_OR_PRISM;
    143 "iq1_tn or ptq1_0" IK_OR_PRISM;
    144 "iq4_ks" IK;
    145 "iq2_ks" IK;
    146 "iq4_kss" IK;
    147 "q8_k16" IK;
    148 "q8_k32" IK;
    149 "q8_kr8" IK;
    150 "q8_k128" IK;
    151 "q8_kv" IK;
    152 "iq5_ks" IK;
    153 "iq2_kt" IK;
    154 "iq3_kt" IK;
    155 "iq4_kt" IK;
    156 "iq3_ks" IK;
    157 "iq2_kl" IK;
    158 "iq1_kt" IK;
    202 "q4_0_r8" IK;
    206 "q5_0_r4" IK;
    208 "q8_0_r8" IK;
    210 "q2_k_r4" IK;
    211 "q3_k_r4" IK;
    212 "q4_k_r4" IK;
    213 "q5_k_r4" IK;
    214 "q6_k_r4" IK;
    216 "iq2_xxs_r4" IK;
    217 "iq2_xs_r4" IK;
    218 "iq3_xxs_r4" IK;
    219 "iq1_s_r4" IK;
    220 "iq4_nl_r4" IK;
    221 "iq3_s_r4" IK;
    222 "iq2_s_r4" IK;
    223 "iq4_xs_r8" IK;
    229 "iq1_m_r4" IK;
    230 "bf16_r16" IK;
    233 "q6_0_r4" IK;
    335 "iq2_bn_r4" IK;
    337 "iq2_k_r4" IK;
    338 "iq3_k_r4" IK;
    339 "iq4_k_r4" IK;
    340 "iq5_k_r4" IK;
    344 "iq4_ks_r4" IK;
    398 "q8_kv_r8" IK;
    399 "q8_k_r8" IK;
}

impl ForkType {
    /// The fork type with this id; `None` for ids no fork in the table uses (and for the spec's
    /// own ids, which [`crate::GgmlType`] names).
    pub fn from_id(id: u32) -> Option<&'static ForkType> {
        FORKS
            .binary_search_by_key(&id, |f| f.id)
            .ok()
            .map(|i| &FORKS[i])
    }

    /// Every fork type of the table, in id order.
    pub fn all() -> impl Iterator<Item = &'static ForkType> {
        FORKS.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_clear_of_the_spec() {
        assert!(FORKS.windows(2).all(|w| w[0].id < w[1].id));
        assert!(FORKS.iter().all(|f| f.id >= crate::GgmlType::COUNT));
        assert_eq!(ForkType::from_id(153).map(|f| f.name), Some("iq2_kt"));
        assert_eq!(ForkType::from_id(139).map(|f| f.name), Some("iq4_k"));
        assert_eq!(ForkType::from_id(66).map(|f| f.name), Some("iq1_xxxs"));
        assert_eq!(ForkType::from_id(45).map(|f| f.name), Some("turboquant"));
        assert_eq!(ForkType::from_id(48), None);
        assert!(REUSED_IDS.contains(&crate::GgmlType::Q1_0.id()));
        assert_eq!(ForkType::from_id(12), None);
    }
}
