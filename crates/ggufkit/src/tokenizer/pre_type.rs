//! The pre-tokenizers of llama.cpp's byte-level BPE (`LLAMA_VOCAB_PRE_TYPE_*` in
//! `llama-vocab.h`) and the regular expressions each one splits text with, exactly as the
//! constructor of `llm_tokenizer_bpe` in `llama-vocab.cpp` lists them (several are llama.cpp's
//! adaptations of the tokenizer.json originals, for its own regex handling; they are kept
//! byte for byte, since `unicode_regex_split` picks its hand-written splitters by comparing
//! these strings). Which `tokenizer.ggml.pre` name selects which type is the vocabulary's
//! business, not this file's.
#![forbid(unsafe_code)]

use super::unicode::split::{RegexSplitError, RegexSplitter};
use std::ops::Range;

/// One of llama.cpp's pre-tokenizer types, with its numeric value in `llama-vocab.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PreType {
    /// `LLAMA_VOCAB_PRE_TYPE_DEFAULT` (0).
    Default = 0,
    /// `LLAMA_VOCAB_PRE_TYPE_LLAMA3` (1).
    Llama3 = 1,
    /// `LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM` (2).
    DeepseekLlm = 2,
    /// `LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_CODER` (3).
    DeepseekCoder = 3,
    /// `LLAMA_VOCAB_PRE_TYPE_FALCON` (4).
    Falcon = 4,
    /// `LLAMA_VOCAB_PRE_TYPE_MPT` (5).
    Mpt = 5,
    /// `LLAMA_VOCAB_PRE_TYPE_STARCODER` (6).
    Starcoder = 6,
    /// `LLAMA_VOCAB_PRE_TYPE_GPT2` (7).
    Gpt2 = 7,
    /// `LLAMA_VOCAB_PRE_TYPE_REFACT` (8).
    Refact = 8,
    /// `LLAMA_VOCAB_PRE_TYPE_COMMAND_R` (9).
    CommandR = 9,
    /// `LLAMA_VOCAB_PRE_TYPE_STABLELM2` (10).
    Stablelm2 = 10,
    /// `LLAMA_VOCAB_PRE_TYPE_QWEN2` (11).
    Qwen2 = 11,
    /// `LLAMA_VOCAB_PRE_TYPE_OLMO` (12).
    Olmo = 12,
    /// `LLAMA_VOCAB_PRE_TYPE_DBRX` (13).
    Dbrx = 13,
    /// `LLAMA_VOCAB_PRE_TYPE_SMAUG` (14).
    Smaug = 14,
    /// `LLAMA_VOCAB_PRE_TYPE_PORO` (15).
    Poro = 15,
    /// `LLAMA_VOCAB_PRE_TYPE_CHATGLM3` (16).
    Chatglm3 = 16,
    /// `LLAMA_VOCAB_PRE_TYPE_CHATGLM4` (17).
    Chatglm4 = 17,
    /// `LLAMA_VOCAB_PRE_TYPE_VIKING` (18).
    Viking = 18,
    /// `LLAMA_VOCAB_PRE_TYPE_JAIS` (19).
    Jais = 19,
    /// `LLAMA_VOCAB_PRE_TYPE_TEKKEN` (20).
    Tekken = 20,
    /// `LLAMA_VOCAB_PRE_TYPE_SMOLLM` (21).
    Smollm = 21,
    /// `LLAMA_VOCAB_PRE_TYPE_CODESHELL` (22).
    Codeshell = 22,
    /// `LLAMA_VOCAB_PRE_TYPE_BLOOM` (23).
    Bloom = 23,
    /// `LLAMA_VOCAB_PRE_TYPE_GPT3_FINNISH` (24).
    Gpt3Finnish = 24,
    /// `LLAMA_VOCAB_PRE_TYPE_EXAONE` (25).
    Exaone = 25,
    /// `LLAMA_VOCAB_PRE_TYPE_CHAMELEON` (26).
    Chameleon = 26,
    /// `LLAMA_VOCAB_PRE_TYPE_MINERVA` (27).
    Minerva = 27,
    /// `LLAMA_VOCAB_PRE_TYPE_DEEPSEEK3_LLM` (28).
    Deepseek3Llm = 28,
    /// `LLAMA_VOCAB_PRE_TYPE_GPT4O` (29).
    Gpt4o = 29,
    /// `LLAMA_VOCAB_PRE_TYPE_SUPERBPE` (30).
    Superbpe = 30,
    /// `LLAMA_VOCAB_PRE_TYPE_TRILLION` (31).
    Trillion = 31,
    /// `LLAMA_VOCAB_PRE_TYPE_BAILINGMOE` (32).
    Bailingmoe = 32,
    /// `LLAMA_VOCAB_PRE_TYPE_LLAMA4` (33).
    Llama4 = 33,
    /// `LLAMA_VOCAB_PRE_TYPE_PIXTRAL` (34).
    Pixtral = 34,
    /// `LLAMA_VOCAB_PRE_TYPE_SEED_CODER` (35).
    SeedCoder = 35,
    /// `LLAMA_VOCAB_PRE_TYPE_HUNYUAN` (36).
    Hunyuan = 36,
    /// `LLAMA_VOCAB_PRE_TYPE_KIMI_K2` (37).
    KimiK2 = 37,
    /// `LLAMA_VOCAB_PRE_TYPE_HUNYUAN_DENSE` (38).
    HunyuanDense = 38,
    /// `LLAMA_VOCAB_PRE_TYPE_GROK_2` (39).
    Grok2 = 39,
    /// `LLAMA_VOCAB_PRE_TYPE_GRANITE_DOCLING` (40).
    GraniteDocling = 40,
    /// `LLAMA_VOCAB_PRE_TYPE_MINIMAX_M2` (41).
    MinimaxM2 = 41,
    /// `LLAMA_VOCAB_PRE_TYPE_AFMOE` (42).
    Afmoe = 42,
    /// `LLAMA_VOCAB_PRE_TYPE_SOLAR_OPEN` (43).
    SolarOpen = 43,
    /// `LLAMA_VOCAB_PRE_TYPE_YOUTU` (44).
    Youtu = 44,
    /// `LLAMA_VOCAB_PRE_TYPE_EXAONE_MOE` (45).
    ExaoneMoe = 45,
    /// `LLAMA_VOCAB_PRE_TYPE_QWEN35` (46).
    Qwen35 = 46,
    /// `LLAMA_VOCAB_PRE_TYPE_TINY_AYA` (47).
    TinyAya = 47,
    /// `LLAMA_VOCAB_PRE_TYPE_JOYAI_LLM` (48).
    JoyaiLlm = 48,
    /// `LLAMA_VOCAB_PRE_TYPE_JAIS2` (49).
    Jais2 = 49,
    /// `LLAMA_VOCAB_PRE_TYPE_GEMMA4` (50).
    Gemma4 = 50,
    /// `LLAMA_VOCAB_PRE_TYPE_SARVAM_MOE` (51).
    SarvamMoe = 51,
    /// `LLAMA_VOCAB_PRE_TYPE_MINICPM5` (52).
    Minicpm5 = 52,
    /// `LLAMA_VOCAB_PRE_TYPE_WHITESPACE` (53).
    Whitespace = 53,
    /// `LLAMA_VOCAB_PRE_TYPE_GRANITE_EMB_MULTI` (54).
    GraniteEmbMulti = 54,
    /// `LLAMA_VOCAB_PRE_TYPE_MELLUM2` (55).
    Mellum2 = 55,
    /// `LLAMA_VOCAB_PRE_TYPE_LAGUNA` (56).
    Laguna = 56,
    /// `LLAMA_VOCAB_PRE_TYPE_HY_V4` (57).
    HyV4 = 57,
    /// `LLAMA_VOCAB_PRE_TYPE_SPARK2_5` (58).
    Spark25 = 58,
    /// `LLAMA_VOCAB_PRE_TYPE_UFAKZEKA` (59).
    Ufakzeka = 59,
}

impl PreType {
    /// Every type, in the order of their numeric values.
    pub const ALL: [PreType; 60] = [
        Self::Default,
        Self::Llama3,
        Self::DeepseekLlm,
        Self::DeepseekCoder,
        Self::Falcon,
        Self::Mpt,
        Self::Starcoder,
        Self::Gpt2,
        Self::Refact,
        Self::CommandR,
        Self::Stablelm2,
        Self::Qwen2,
        Self::Olmo,
        Self::Dbrx,
        Self::Smaug,
        Self::Poro,
        Self::Chatglm3,
        Self::Chatglm4,
        Self::Viking,
        Self::Jais,
        Self::Tekken,
        Self::Smollm,
        Self::Codeshell,
        Self::Bloom,
        Self::Gpt3Finnish,
        Self::Exaone,
        Self::Chameleon,
        Self::Minerva,
        Self::Deepseek3Llm,
        Self::Gpt4o,
        Self::Superbpe,
        Self::Trillion,
        Self::Bailingmoe,
        Self::Llama4,
        Self::Pixtral,
        Self::SeedCoder,
        Self::Hunyuan,
        Self::KimiK2,
        Self::HunyuanDense,
        Self::Grok2,
        Self::GraniteDocling,
        Self::MinimaxM2,
        Self::Afmoe,
        Self::SolarOpen,
        Self::Youtu,
        Self::ExaoneMoe,
        Self::Qwen35,
        Self::TinyAya,
        Self::JoyaiLlm,
        Self::Jais2,
        Self::Gemma4,
        Self::SarvamMoe,
        Self::Minicpm5,
        Self::Whitespace,
        Self::GraniteEmbMulti,
        Self::Mellum2,
        Self::Laguna,
        Self::HyV4,
        Self::Spark25,
        Self::Ufakzeka,
    ];

    /// The numeric value llama.cpp gives this type.
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// The type with llama.cpp's numeric value `id`.
    pub fn from_id(id: u32) -> Option<PreType> {
        Self::ALL.get(usize::try_from(id).ok()?).copied()
    }

    /// The suffix of llama.cpp's enum constant (`LLAMA3` for `LLAMA_VOCAB_PRE_TYPE_LLAMA3`).
    pub const fn c_name(self) -> &'static str {
        match self {
            Self::Default => "DEFAULT",
            Self::Llama3 => "LLAMA3",
            Self::DeepseekLlm => "DEEPSEEK_LLM",
            Self::DeepseekCoder => "DEEPSEEK_CODER",
            Self::Falcon => "FALCON",
            Self::Mpt => "MPT",
            Self::Starcoder => "STARCODER",
            Self::Gpt2 => "GPT2",
            Self::Refact => "REFACT",
            Self::CommandR => "COMMAND_R",
            Self::Stablelm2 => "STABLELM2",
            Self::Qwen2 => "QWEN2",
            Self::Olmo => "OLMO",
            Self::Dbrx => "DBRX",
            Self::Smaug => "SMAUG",
            Self::Poro => "PORO",
            Self::Chatglm3 => "CHATGLM3",
            Self::Chatglm4 => "CHATGLM4",
            Self::Viking => "VIKING",
            Self::Jais => "JAIS",
            Self::Tekken => "TEKKEN",
            Self::Smollm => "SMOLLM",
            Self::Codeshell => "CODESHELL",
            Self::Bloom => "BLOOM",
            Self::Gpt3Finnish => "GPT3_FINNISH",
            Self::Exaone => "EXAONE",
            Self::Chameleon => "CHAMELEON",
            Self::Minerva => "MINERVA",
            Self::Deepseek3Llm => "DEEPSEEK3_LLM",
            Self::Gpt4o => "GPT4O",
            Self::Superbpe => "SUPERBPE",
            Self::Trillion => "TRILLION",
            Self::Bailingmoe => "BAILINGMOE",
            Self::Llama4 => "LLAMA4",
            Self::Pixtral => "PIXTRAL",
            Self::SeedCoder => "SEED_CODER",
            Self::Hunyuan => "HUNYUAN",
            Self::KimiK2 => "KIMI_K2",
            Self::HunyuanDense => "HUNYUAN_DENSE",
            Self::Grok2 => "GROK_2",
            Self::GraniteDocling => "GRANITE_DOCLING",
            Self::MinimaxM2 => "MINIMAX_M2",
            Self::Afmoe => "AFMOE",
            Self::SolarOpen => "SOLAR_OPEN",
            Self::Youtu => "YOUTU",
            Self::ExaoneMoe => "EXAONE_MOE",
            Self::Qwen35 => "QWEN35",
            Self::TinyAya => "TINY_AYA",
            Self::JoyaiLlm => "JOYAI_LLM",
            Self::Jais2 => "JAIS2",
            Self::Gemma4 => "GEMMA4",
            Self::SarvamMoe => "SARVAM_MOE",
            Self::Minicpm5 => "MINICPM5",
            Self::Whitespace => "WHITESPACE",
            Self::GraniteEmbMulti => "GRANITE_EMB_MULTI",
            Self::Mellum2 => "MELLUM2",
            Self::Laguna => "LAGUNA",
            Self::HyV4 => "HY_V4",
            Self::Spark25 => "SPARK2_5",
            Self::Ufakzeka => "UFAKZEKA",
        }
    }

    /// The regular expressions llama.cpp splits text with for this type, applied one after the
    /// other (each to the pieces the previous one left). Types the constructor does not name
    /// get its `default:` list.
    pub const fn regex_exprs(self) -> &'static [&'static str] {
        match self {
            Self::Llama3 | Self::Dbrx | Self::Smaug | Self::Chatglm4 => RE_LLAMA3,
            Self::Jais2 => RE_JAIS2,
            Self::DeepseekLlm => RE_DEEPSEEK_LLM,
            Self::Deepseek3Llm | Self::HunyuanDense | Self::JoyaiLlm | Self::HyV4 => {
                RE_DEEPSEEK3_LLM
            }
            Self::Spark25 => RE_SPARK2_5,
            Self::Youtu => RE_YOUTU,
            Self::DeepseekCoder => RE_DEEPSEEK_CODER,
            Self::Falcon => RE_FALCON,
            Self::Starcoder
            | Self::Refact
            | Self::CommandR
            | Self::Smollm
            | Self::Codeshell
            | Self::Exaone
            | Self::Minerva
            | Self::Mellum2 => RE_STARCODER,
            Self::Gpt2
            | Self::Mpt
            | Self::Olmo
            | Self::Jais
            | Self::Trillion
            | Self::GraniteDocling => RE_GPT2,
            Self::Stablelm2 | Self::Qwen2 | Self::Hunyuan | Self::SolarOpen | Self::Grok2 => {
                RE_QWEN2
            }
            Self::Qwen35 => RE_QWEN35,
            Self::Poro | Self::Bloom | Self::Gpt3Finnish => RE_PORO,
            Self::Viking => RE_VIKING,
            Self::Tekken => RE_TEKKEN,
            Self::Chameleon => RE_CHAMELEON,
            Self::Gpt4o | Self::MinimaxM2 => RE_GPT4O,
            Self::GraniteEmbMulti => RE_GRANITE_EMB_MULTI,
            Self::TinyAya => RE_TINY_AYA,
            Self::KimiK2 => RE_KIMI_K2,
            Self::Superbpe => RE_SUPERBPE,
            Self::Bailingmoe => RE_BAILINGMOE,
            Self::SeedCoder => RE_SEED_CODER,
            Self::Ufakzeka => RE_UFAKZEKA,
            Self::Afmoe => RE_AFMOE,
            Self::Laguna => RE_LAGUNA,
            Self::ExaoneMoe => RE_EXAONE_MOE,
            Self::Gemma4 | Self::SarvamMoe => RE_GEMMA4,
            Self::Minicpm5 => RE_MINICPM5,
            Self::Whitespace => RE_WHITESPACE,
            Self::Default | Self::Chatglm3 | Self::Llama4 | Self::Pixtral => RE_DEFAULT,
        }
    }

    /// Whether the pieces are byte-encoded (GPT-2's byte-to-character map) before BPE: false
    /// for the SentencePiece-style BPE vocabularies (raw UTF-8) llama.cpp names.
    pub const fn byte_encode(self) -> bool {
        !matches!(self, Self::Gemma4 | Self::SarvamMoe | Self::Whitespace)
    }
}

const RE_LLAMA3: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_JAIS2: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}",
];
const RE_DEEPSEEK_LLM: &[&str] = &[
    "[\r\n]",
    "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
    "\\s?[!-/:-~！-／：-～‘-‟　-。]+",
    "\\s+$",
    "[一-龥ࠀ-一가-퟿]+",
    "\\p{N}+",
];
const RE_DEEPSEEK3_LLM: &[&str] = &[
    "\\p{N}{1,3}",
    "[一-龥぀-ゟ゠-ヿ]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
];
const RE_SPARK2_5: &[&str] = &[
    "\\p{N}{1,3}",
    "[一-龥぀-ゟ゠-ヿ]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+",
    "\\p{N}",
];
const RE_YOUTU: &[&str] = &[
    "[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_DEEPSEEK_CODER: &[&str] = &[
    "[\r\n]",
    "\\s?\\p{L}+",
    "\\s?\\p{P}+",
    "[一-龥ࠀ-一가-퟿]+",
    "\\p{N}",
];
const RE_FALCON: &[&str] = &[
    "[\\p{P}\\$\\+<=>\\^~\\|`]+",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    "[0-9][0-9][0-9]",
];
const RE_STARCODER: &[&str] = &[
    "\\p{N}",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
];
const RE_GPT2: &[&str] =
    &["'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"];
const RE_QWEN2: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_QWEN35: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_PORO: &[&str] = &[" ?[^(\\s|.,!?…。，、।۔،)]+"];
const RE_VIKING: &[&str] = &[" ?[^(\\s|.,!?…。，、।۔،)]+", "\\p{N}"];
const RE_TEKKEN: &[&str] = &[
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_CHAMELEON: &[&str] = &[
    "<sentinel:[0-9]+>",
    "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
    "([\\t\\n]|    |  )",
    "\\p{N}",
    "[\\p{P}!-/:-@\\[-`{-~]",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
];
const RE_GPT4O: &[&str] = &[
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_GRANITE_EMB_MULTI: &[&str] = &[
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_TINY_AYA: &[&str] = &[
    "\\d{1,3}(?=(?:\\d{3})*\\b)",
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_KIMI_K2: &[&str] = &["\\p{Han}+"];
const RE_SUPERBPE: &[&str] = &["\\p{N}+", "(?=(\\d{3})+(?!\\d))"];
const RE_BAILINGMOE: &[&str] = &[
    "'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
];
const RE_SEED_CODER: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_UFAKZEKA: &[&str] = &[
    "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_AFMOE: &[&str] = &[
    "\\p{AFMoE_digits}",
    "[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_LAGUNA: &[&str] = &[
    "[^\\n]+|[\\n]+",
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_EXAONE_MOE: &[&str] = &[
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
];
const RE_GEMMA4: &[&str] = &["[^\\n]+|[\\n]+"];
const RE_MINICPM5: &[&str] = &[
    "\\p{N}{1,3}",
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
];
const RE_WHITESPACE: &[&str] = &["\\S+"];
const RE_DEFAULT: &[&str] = &[
    "[\\p{P}\\$\\+<=>\\^~\\|]+",
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    "\\p{N}+",
    "[0-9][0-9][0-9]",
];

/// The pre-tokenizer of a [`PreType`], compiled once: splits text into the words llama.cpp's
/// BPE tokenizer then encodes one by one. `Send + Sync`; [`PreTokenizer::split`] takes `&self`.
#[derive(Debug)]
pub struct PreTokenizer {
    pre: PreType,
    splitter: RegexSplitter,
}

impl PreTokenizer {
    /// Compiles the expressions of `pre`.
    pub fn new(pre: PreType) -> Result<PreTokenizer, RegexSplitError> {
        Ok(PreTokenizer {
            pre,
            splitter: RegexSplitter::new(pre.regex_exprs())?,
        })
    }

    /// The type this pre-tokenizer was made for.
    pub fn pre_type(&self) -> PreType {
        self.pre
    }

    /// Appends to `out` the byte ranges of the words of `text`, in order and covering it,
    /// exactly as llama.cpp's `unicode_regex_split` splits it with this type's expressions
    /// (empty words included where llama.cpp makes them; none for empty text).
    pub fn split(&self, text: &str, out: &mut Vec<Range<usize>>) {
        self.splitter.split(text, out)
    }
}

#[cfg(test)]
mod tests {
    use super::PreType;

    /// The value of a C++ string literal (the escapes llama-vocab.cpp uses).
    fn cpp_literal(lit: &str) -> String {
        let inner = &lit[1..lit.len() - 1];
        let mut out = String::new();
        let mut it = inner.chars();
        while let Some(c) = it.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match it.next() {
                Some('r') => out.push('\r'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(e @ ('\\' | '"' | '\'')) => out.push(e),
                e => panic!("escape {e:?} in {lit}"),
            }
        }
        out
    }

    /// (case names, regex list, byte_encode) of llm_tokenizer_bpe's constructor.
    fn constructor_lists(src: &str) -> Vec<(Vec<String>, Vec<String>, bool)> {
        let start = src
            .find("struct llm_tokenizer_bpe : llm_tokenizer {")
            .unwrap();
        let end = start
            + src[start..]
                .find("std::vector<std::string> regex_exprs;")
                .unwrap();
        let mut groups: Vec<(Vec<String>, Vec<String>, bool)> = Vec::new();
        let mut cases = Vec::new();
        let mut in_list = false;
        for line in src[start..end].lines() {
            let t = line.trim();
            if let Some(name) = t.strip_prefix("case LLAMA_VOCAB_PRE_TYPE_") {
                cases.push(name.trim_end_matches(':').to_string());
            } else if t == "default:" {
                cases.push("<default>".to_string());
            } else if t.starts_with("regex_exprs = {") {
                in_list = true;
                groups.push((std::mem::take(&mut cases), Vec::new(), true));
            } else if in_list && t.starts_with("};") {
                in_list = false;
            } else if in_list && t.starts_with('"') {
                // the literal ends at the last quote before an optional `,` and comment
                let close = t.rfind("\",").or_else(|| t.rfind('"')).unwrap();
                let lit = &t[..=close];
                groups.last_mut().unwrap().1.push(cpp_literal(lit));
            } else if t.starts_with("byte_encode = false") {
                groups.last_mut().unwrap().2 = false;
            }
        }
        groups
    }

    #[test]
    fn lists_are_llama_vocab_cpps() {
        let Some(dir) = ggufkit_testkit::reference::llama_cpp_src() else {
            return;
        };
        let src = std::fs::read_to_string(dir.join("src/llama-vocab.cpp")).unwrap();
        let header = std::fs::read_to_string(dir.join("src/llama-vocab.h")).unwrap();
        // every enum constant of the header, with its value
        let mut declared = Vec::new();
        for line in header.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("LLAMA_VOCAB_PRE_TYPE_") {
                let (name, value) = rest.split_once('=').unwrap();
                let value: u32 = value.trim().trim_end_matches(',').parse().unwrap();
                declared.push((name.trim().to_string(), value));
            }
        }
        assert_eq!(declared.len(), PreType::ALL.len());
        for (name, value) in &declared {
            let t = PreType::from_id(*value).unwrap();
            assert_eq!(t.c_name(), name);
        }
        let groups = constructor_lists(&src);
        let default = groups
            .iter()
            .find(|g| g.0.iter().any(|c| c == "<default>"))
            .unwrap();
        let mut compared = 0;
        for t in PreType::ALL {
            let g = groups
                .iter()
                .find(|g| g.0.iter().any(|c| c == t.c_name()))
                .unwrap_or(default);
            let ours: Vec<String> = t.regex_exprs().iter().map(|s| s.to_string()).collect();
            assert_eq!(ours, g.1, "regex list of {}", t.c_name());
            assert_eq!(t.byte_encode(), g.2, "byte_encode of {}", t.c_name());
            compared += 1;
        }
        println!("{compared} pre-tokenizer types compared with llama-vocab.cpp");
    }
}
