//! Which llama.cpp release can load a file: the release (`bNNNN`, llama.cpp's build tags) that
//! introduced each ggml tensor type id and each `tokenizer.ggml.pre` name, as data, with the
//! source of each fact beside it. The audit takes the newest of what a file needs
//! (`audit/release.rs`).
//!
//! How the tags were found: each type or pre-tokenizer came with a pull request of
//! github.com/ggml-org/llama.cpp; llama.cpp tags a release for every commit on master, so the
//! first release with it is the first tag after the merge. Where a source names that release
//! the tag is [`Tag::Exact`]; where only the merge date is known, the tag is interpolated
//! between releases whose dates are known ([`ANCHORS`]) and is [`Tag::About`] (within a few
//! dozen builds); where not even that is known it is [`Tag::Unknown`], and the audit says so
//! rather than guess.
#![forbid(unsafe_code)]

use std::fmt;

use crate::forks::ForkType;
use crate::tensor_type::{OtherType, TensorType};

/// A llama.cpp release, as far as the sources date it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    /// The first release `bN` that has it, as a source says.
    Exact(u32),
    /// About `bN`: the first release after the pull request's merge date, interpolated between
    /// releases of known dates.
    About(u32),
    /// A release the sources here do not date (the pull request is known).
    Unknown,
}

impl Tag {
    /// The build number, when dated.
    pub fn number(self) -> Option<u32> {
        match self {
            Tag::Exact(n) | Tag::About(n) => Some(n),
            Tag::Unknown => None,
        }
    }

    /// Whether the number is an estimate.
    pub fn is_approximate(self) -> bool {
        matches!(self, Tag::About(_))
    }
}

impl fmt::Display for Tag {
    /// `b6096`, `b6096 (approximately)`, or `an undated release`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tag::Exact(n) => write!(f, "b{n}"),
            Tag::About(n) => write!(f, "b{n} (approximately)"),
            Tag::Unknown => f.write_str("an undated release"),
        }
    }
}

/// When llama.cpp gained something: the release and where the fact comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Introduced {
    pub tag: Tag,
    /// The pull request and its merge date (`PR #15091, 2025-08-05`).
    pub source: &'static str,
}

const fn about(n: u32, source: &'static str) -> Introduced {
    Introduced {
        tag: Tag::About(n),
        source,
    }
}

const fn undated(source: &'static str) -> Introduced {
    Introduced {
        tag: Tag::Unknown,
        source,
    }
}

/// What llama.cpp's releases make of a tensor type id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSupport {
    /// Loaded by every release since.
    Since(Introduced),
    /// Loaded by the releases from `loaded` on, refused again since `removed`.
    Removed {
        loaded: Introduced,
        removed: Introduced,
    },
    /// No release reads it from a file (why).
    Never(&'static str),
    /// A fork's type: no llama.cpp release reads it.
    Fork(&'static ForkType),
    /// An id no table here knows.
    Unknown,
}

/// Releases whose dates the sources give (build, date), for the interpolation of the
/// [`Tag::About`] entries: each is a build a dated report ran (llama.cpp's issues, whose
/// `--version` lines print the build), so the release of a date is at least the build seen.
pub const ANCHORS: &[(u32, &str)] = &[
    (1015, "2023-08-21"),  // the GGUF merge (PR #2398, "Merge ETA: 21 Aug")
    (2037, "2024-01-31"),  // issue #5856 (IQ3_XXS regressions: "b2037 31-1-2024")
    (2329, "2024-03-03"),  // issue #5856 ("b2329 03-3-2024")
    (2852, "2024-05-11"),  // issue #7223 (a bf16 GGUF loaded by build 2852)
    (2894, "2024-05-16"),  // janhq/cortex.llamacpp PR #26 (bump to b2894)
    (3135, "2024-06-12"),  // janhq/cortex.llamacpp PR #83 ("latest release b3135")
    (3322, "2024-07-05"),  // janhq/cortex.llamacpp PR #132 ("latest release b3322")
    (3398, "2024-07-15"),  // janhq/cortex.llamacpp PR #145
    (3447, "2024-07-23"),  // janhq/cortex.llamacpp PR #156
    (3636, "2024-08-27"),  // janhq/cortex.llamacpp PR #205
    (3772, "2024-09-16"),  // janhq/cortex.llamacpp PR #232
    (4019, "2024-11-03"),  // janhq/cortex.llamacpp PR #280
    (4201, "2024-11-27"),  // janhq/cortex.llamacpp PR #305
    (4486, "2025-01-16"),  // issue #11258 (version: 4486)
    (4708, "2025-02-13"),  // janhq/cortex.llamacpp PR #401
    (5122, "2025-04-13"),  // issue #12913 (build = 5122)
    (6090, "2025-08-05"),  // issue #15099 (version: 6090, hours before MXFP4's release)
    (6793, "2025-10-21"),  // issue #16709 (version: 6793)
    (7821, "2026-01-24"),  // JuliaPackaging/Yggdrasil PR #13002 (update to b7821)
    (8067, "2026-02-16"),  // microsoft/winget-pkgs PR #339654 (ggml-bot-2: b8067)
    (8387, "2026-03-19"),  // issue #20761 (version: 8387)
    (8651, "2026-04-03"),  // gominimal/pkgs PR #40 (update to b8651)
    (8941, "2026-04-26"),  // gominimal/pkgs PR #122 (update to b8941)
    (9279, "2026-05-22"),  // issue #23532 (version: 9279)
    (9937, "2026-07-09"),  // Atomic-Chat PR #187 ("b9937 was cut Jul 9")
    (10456, "2026-08-17"), // issue #27254 (build 10456)
];

/// Every type GGUF itself was introduced with (PR #2398, merged 2023-08-21, the first GGUF
/// release): the legacy quantizations, the K-quants (PR #1684, June 2023) and the floats.
const GGUF: Introduced = about(
    1015,
    "PR #2398 (GGUF itself, 2023-08-21); the type predates GGUF",
);

/// What llama.cpp's releases make of the tensor type id `id`.
pub fn type_support(id: u32) -> TypeSupport {
    use TypeSupport::{Never, Since};
    match id {
        // f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q8_1; q2_k..q8_k (PR #1684, 2023-06-05)
        0..=3 | 6..=15 => Since(GGUF),
        4 | 5 => Never("removed from ggml in 2023, before GGUF existed"),
        // https://github.com/ggml-org/llama.cpp/pull/4773 (IQ2_XXS, merged 2024-01-08)
        16 => Since(about(1890, "PR #4773 (iq2_xxs, 2024-01-08)")),
        // https://github.com/ggml-org/llama.cpp/pull/4856 (IQ2_XS, merged 2024-01-11)
        17 => Since(about(1910, "PR #4856 (iq2_xs, 2024-01-11)")),
        // https://github.com/ggml-org/llama.cpp/pull/5196 (IQ3_XXS, merged 2024-01-30)
        18 => Since(about(2030, "PR #5196 (iq3_xxs, 2024-01-30)")),
        // https://github.com/ggml-org/llama.cpp/pull/5453 (IQ1_S, merged 2024-02-18)
        19 => Since(about(2200, "PR #5453 (iq1_s, 2024-02-18)")),
        // https://github.com/ggml-org/llama.cpp/pull/5590 (IQ4_NL, merged 2024-02-21)
        20 => Since(about(2230, "PR #5590 (iq4_nl, 2024-02-21)")),
        // https://github.com/ggml-org/llama.cpp/pull/5676 (IQ3_S, merged 2024-02-24)
        21 => Since(about(2255, "PR #5676 (iq3_s, 2024-02-24)")),
        // https://github.com/ggml-org/llama.cpp/pull/5721 (IQ2_S, merged 2024-02-26)
        22 => Since(about(2275, "PR #5721 (iq2_s, 2024-02-26)")),
        // https://github.com/ggml-org/llama.cpp/pull/5747 (IQ4_XS, merged 2024-02-27)
        23 => Since(about(2280, "PR #5747 (iq4_xs, 2024-02-27)")),
        // i8, i16, i32 existed before GGUF, but as ids 16-18: each i-quant above pushed them up,
        // and they have held 24-26 since IQ4_XS (PR #5747); gguf-py learnt them in PR #6045
        24..=26 => Since(about(
            2280,
            "PR #5747 (2024-02-27), since which i8/i16/i32 are ids 24-26",
        )),
        // https://github.com/ggml-org/llama.cpp/pull/6062 (I64 and F64, merged 2024-03-15)
        27 | 28 => Since(about(2420, "PR #6062 (i64, f64, 2024-03-15)")),
        // https://github.com/ggml-org/llama.cpp/pull/6302 (IQ1_M, merged 2024-03-26)
        29 => Since(about(2505, "PR #6302 (iq1_m, 2024-03-26)")),
        // https://github.com/ggml-org/llama.cpp/pull/6412 (bfloat16, merged 2024-05-08); issue
        // #7223 loads a bf16 file with build 2852 on 2024-05-11
        30 => Since(about(2830, "PR #6412 (bf16, 2024-05-08)")),
        // https://github.com/ggml-org/llama.cpp/pull/5780 (Q4_0_4_4/4_8/8_8, merged 2024-07-10);
        // refused since the online repacking refactor, PR #10446 (December 2024)
        31..=33 => TypeSupport::Removed {
            loaded: about(3360, "PR #5780 (q4_0_4_4, q4_0_4_8, q4_0_8_8, 2024-07-10)"),
            removed: about(
                4258,
                "PR #10446 (repacking q4_0 at load time instead, 2024-12)",
            ),
        },
        // https://github.com/ggml-org/llama.cpp/pull/8151 (TQ1_0, TQ2_0, merged 2024-09-06)
        34 | 35 => Since(about(3704, "PR #8151 (tq1_0, tq2_0, 2024-09-06)")),
        36..=38 => {
            Never("only ever an in-memory repacking of iq4_nl (PR #10541), never read from files")
        }
        // https://github.com/ggml-org/llama.cpp/pull/15091 (MXFP4 with gpt-oss, 2025-08-05);
        // issue #15099: build 6090 refused it the same day
        39 => Since(about(6096, "PR #15091 (mxfp4, 2025-08-05)")),
        // https://github.com/ggml-org/llama.cpp/pull/19769 (NVFP4, reviewed 2026-02-26..28,
        // present by 2026-03-14 per PR #20561); no release of that month is dated here
        40 => Since(undated("PR #19769 (nvfp4, merged about 2026-03)")),
        // https://github.com/ggml-org/llama.cpp/pull/21273 (Q1_0, merged about 2026-04-06;
        // LM Studio's llama.cpp of 2026-04-02 still counted 41 types)
        41 => Since(undated("PR #21273 (q1_0, merged about 2026-04)")),
        // https://github.com/ggml-org/llama.cpp/pull/24448 (Q2_0 CPU kernels, merged 2026-07-07);
        // Atomic-Chat PR #187: b9937 (2026-07-09) has it
        42 => Since(about(9937, "PR #24448 (q2_0, 2026-07-07)")),
        _ => match TensorType::from_id(id).other() {
            Some(OtherType::Fork(f)) => TypeSupport::Fork(f),
            _ => TypeSupport::Unknown,
        },
    }
}

/// The pull request that made `tokenizer.ggml.pre` mean something: before it llama.cpp ignored
/// the key (any name loads, tokenized by the default rules); from it on an unknown name is
/// refused.
pub const PRE_TOKENIZERS: Introduced = about(2760, "PR #6920 (BPE pre-tokenizers, 2024-04-29)");

/// When llama.cpp learnt the BPE pre-tokenizer name `name` (`tokenizer.ggml.pre`); `None` for a
/// name no release knows.
pub fn pre_tokenizer(name: &str) -> Option<Introduced> {
    PRE_NAMES
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|&(_, i)| i)
}

/// Every name llama.cpp's `llama_vocab::load` knows, grouped by when it came.
#[rustfmt::skip]
const PRE_NAMES: &[(&[&str], Introduced)] = &[
    // the names of PR #6920 itself (LLAMA_VOCAB_PRE_TYPE 0-7); "" reads as "default"
    (&["", "default", "llama3", "llama-bpe", "deepseek-llm", "deepseek-coder", "falcon", "mpt",
       "starcoder", "gpt-2"], PRE_TOKENIZERS),
    // REFACT (8) and COMMAND_R (9): after PR #6920 (2024-04-29), before PR #7114 (2024-05-08)
    (&["refact", "command-r"], about(2790, "after PR #6920, before PR #7114 (2024-05)")),
    // https://github.com/ggml-org/llama.cpp/pull/7114 (Qwen2, opened 2024-05-07)
    (&["qwen2"], about(2830, "PR #7114 (qwen2, 2024-05-08)")),
    // https://github.com/ggml-org/llama.cpp/pull/7349 (StableLM2, 2024-05-18)
    (&["stablelm2"], about(2915, "PR #7349 (stablelm2, 2024-05-18)")),
    // https://github.com/ggml-org/llama.cpp/pull/8579 (Tekken, opened 2024-07-18; a b3405 file
    // of that day was refused for want of it)
    (&["tekken"], about(3425, "PR #8579 (tekken, 2024-07-19)")),
    // https://github.com/ggml-org/llama.cpp/pull/8609 (SmolLM, opened 2024-07-20)
    (&["smollm"], about(3441, "PR #8609 (smollm, 2024-07-22)")),
    // https://github.com/ggml-org/llama.cpp/pull/8850 (opened 2024-08-04, unmerged on 08-13)
    (&["bloom", "gpt3-finnish"], undated("PR #8850 (bloom, gpt3-finnish, 2024-08)")),
    // https://github.com/ggml-org/llama.cpp/pull/9361 (Phi-2's tokenizer, 2024-09-08)
    (&["phi-2"], about(3724, "PR #9361 (phi-2, 2024-09-09)")),
    // known to llama.cpp, their pull requests not dated here
    (&["llama-v3", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano",
       "minicpm5", "deepseek-v3", "spark2_5", "youtu", "jina-es", "jina-de", "gigachat",
       "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert", "jais-2", "gemma4",
       "granite-embed-multi-311m", "sarvam-moe", "jina-v1-en", "jina-v2-code", "roberta-bpe",
       "whitespace", "deepseek-r1-qwen", "kormo", "f2llmv2", "qwen35", "olmo", "dbrx",
       "smaug-bpe", "poro-chat", "chatglm-bpe", "glm4", "glm5", "viking", "jais", "codeshell",
       "exaone", "exaone4", "exaone-moe", "chameleon", "minerva-7b", "megrez", "gpt-4o",
       "llama4", "kanana2", "talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe",
       "superbpe", "trillion", "granite-docling", "bailingmoe", "bailingmoe2", "llada-moe",
       "seed-coder", "hunyuan", "hunyuan-dense", "hy_v4", "joyai-llm", "kimi-k2", "ufakzeka",
       "grok-2", "afmoe", "laguna", "minimax-m2", "solar-open", "mellum2"],
     undated("a pull request not dated here")),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GgmlType;

    #[test]
    fn every_type_ggml_reads_is_dated_or_says_it_is_not() {
        for t in GgmlType::all() {
            let s = type_support(t.id());
            if t.is_removed() {
                assert!(
                    matches!(s, TypeSupport::Never(_) | TypeSupport::Removed { .. }),
                    "{t}"
                );
            } else {
                assert!(matches!(s, TypeSupport::Since(_)), "{t}");
            }
        }
        assert_eq!(type_support(12), TypeSupport::Since(GGUF));
        assert_eq!(
            type_support(39),
            TypeSupport::Since(about(6096, "PR #15091 (mxfp4, 2025-08-05)"))
        );
        assert!(matches!(type_support(153), TypeSupport::Fork(f) if f.name == "iq2_kt"));
        assert_eq!(type_support(1000), TypeSupport::Unknown);
    }

    #[test]
    fn tags_grow_with_the_type_ids_that_were_added_in_order() {
        // ids were handed out in order: a later id is never dated before an earlier one
        let mut last = 0;
        for id in (16..=23).chain(27..=30).chain(34..=35).chain([39, 42]) {
            let TypeSupport::Since(i) = type_support(id) else {
                panic!("{id}")
            };
            let n = i.tag.number().expect("dated");
            assert!(n >= last, "id {id}: b{n} before b{last}");
            last = n;
        }
    }

    #[test]
    fn anchors_are_in_order() {
        assert!(ANCHORS
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }

    #[test]
    fn every_pre_tokenizer_llama_cpp_knows_is_in_the_table_once() {
        // the names the tokenizer knows, as its table spells them (b"name")
        let src = include_str!("tokenizer/pre_name.rs");
        let body = &src[src.find("fn pre_settings").expect("the table")..];
        let known: Vec<&str> = body
            .match_indices("b\"")
            .filter(|&(at, _)| !body.as_bytes()[at - 1].is_ascii_alphanumeric())
            .filter_map(|(at, _)| body[at + 2..].split('"').next())
            .collect();
        assert!(known.len() > 90, "{}", known.len());
        for n in &known {
            assert!(pre_tokenizer(n).is_some(), "{n} is not in the table");
        }
        let all: Vec<&str> = PRE_NAMES
            .iter()
            .flat_map(|(n, _)| n.iter().copied())
            .collect();
        for n in &all {
            assert!(known.contains(n), "{n} is not a name llama.cpp knows");
            assert_eq!(all.iter().filter(|m| *m == n).count(), 1, "{n} twice");
        }
        assert_eq!(pre_tokenizer("frobnicate"), None);
        assert_eq!(pre_tokenizer("llama-bpe"), Some(PRE_TOKENIZERS));
    }
}
