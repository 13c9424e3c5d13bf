//! `tokenizer.ggml.pre` names: which pre-tokenizer (llama.cpp's `LLAMA_VOCAB_PRE_TYPE_*`) each
//! selects, and the flags llama.cpp's loader sets with it for BPE vocabularies.
#![forbid(unsafe_code)]

use super::pre_type::PreType;

/// What a `tokenizer.ggml.pre` name sets in a BPE vocabulary, over the BPE defaults (no space
/// prefix, no whitespace escaping, clean spaces on decoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PreSettings {
    /// The pre-tokenizer.
    pub pre: PreType,
    /// A word that is a token as a whole is not merged (`ignore_merges`).
    pub ignore_merges: bool,
    /// BOS is added (before `tokenizer.ggml.add_bos_token` is read).
    pub add_bos: bool,
    /// Decoding cleans spaces before punctuation (`clean_up_tokenization_spaces`).
    pub clean_spaces: bool,
    /// Spaces are written `▁` before BPE (SentencePiece-style BPE).
    pub escape_whitespaces: bool,
    /// SEP is added (before `tokenizer.ggml.add_sep_token` is read).
    pub add_sep: bool,
    /// The BERT normalizer's lowercase default is off.
    pub keep_case: bool,
    /// The default BOS id is cleared.
    pub no_bos: bool,
}

impl PreSettings {
    const fn new(pre: PreType) -> Self {
        PreSettings {
            pre,
            ignore_merges: false,
            add_bos: false,
            clean_spaces: true,
            escape_whitespaces: false,
            add_sep: false,
            keep_case: false,
            no_bos: false,
        }
    }
    const fn ignore_merges(mut self) -> Self {
        self.ignore_merges = true;
        self
    }
    const fn add_bos(mut self) -> Self {
        self.add_bos = true;
        self
    }
    const fn raw_spaces(mut self) -> Self {
        self.clean_spaces = false;
        self
    }
    const fn escape(mut self) -> Self {
        self.escape_whitespaces = true;
        self
    }
    const fn add_sep(mut self) -> Self {
        self.add_sep = true;
        self
    }
    const fn keep_case(mut self) -> Self {
        self.keep_case = true;
        self
    }
    const fn no_bos(mut self) -> Self {
        self.no_bos = true;
        self
    }
}

/// The settings llama.cpp's loader gives the pre-tokenizer name `name` (`None`: a name it refuses).
/// An absent or empty name is `default`.
pub(crate) fn pre_settings(name: &[u8]) -> Option<PreSettings> {
    use PreType as P;
    let s = PreSettings::new;
    Some(match name {
        b"" | b"default" => s(P::Default),
        b"minicpm5" => s(P::Minicpm5).ignore_merges(),
        b"llama3" | b"llama-v3" | b"llama-bpe" | b"falcon3" | b"falcon-h1" | b"pixtral"
        | b"midm-2.0" | b"lfm2" | b"jina-v5-nano" => s(P::Llama3).ignore_merges().add_bos(),
        b"deepseek-llm" => s(P::DeepseekLlm).raw_spaces(),
        b"deepseek-coder" => s(P::DeepseekCoder).raw_spaces(),
        b"deepseek-v3" => s(P::Deepseek3Llm).raw_spaces(),
        b"spark2_5" => s(P::Spark25).raw_spaces(),
        b"youtu" => s(P::Youtu).raw_spaces().ignore_merges(),
        b"falcon" => s(P::Falcon),
        b"mpt" => s(P::Mpt),
        b"starcoder" => s(P::Starcoder),
        b"gpt-2" | b"phi-2" | b"jina-es" | b"jina-de" | b"gigachat" | b"jina-v2-es"
        | b"jina-v2-de" | b"a.x-4.0" | b"mellum" | b"modern-bert" => s(P::Gpt2),
        b"jais-2" => s(P::Jais2),
        b"gemma4" | b"granite-embed-multi-311m" => s(P::Gemma4).escape(),
        b"sarvam-moe" => s(P::SarvamMoe).escape().raw_spaces(),
        b"jina-v1-en" | b"jina-v2-code" | b"roberta-bpe" => s(P::Gpt2).add_sep(),
        b"whitespace" => s(P::Whitespace).keep_case(),
        b"refact" => s(P::Refact),
        b"command-r" => s(P::CommandR).raw_spaces(),
        b"qwen2" | b"deepseek-r1-qwen" | b"kormo" | b"f2llmv2" => s(P::Qwen2).raw_spaces(),
        b"qwen35" => s(P::Qwen35).raw_spaces(),
        b"stablelm2" => s(P::Stablelm2),
        b"olmo" => s(P::Olmo),
        b"dbrx" => s(P::Dbrx),
        b"smaug-bpe" => s(P::Smaug),
        b"poro-chat" => s(P::Poro).raw_spaces(),
        b"chatglm-bpe" => s(P::Chatglm4).no_bos(),
        b"glm4" | b"glm5" => s(P::Chatglm4).no_bos().ignore_merges(),
        b"viking" => s(P::Viking).raw_spaces(),
        b"jais" => s(P::Jais),
        b"tekken" => s(P::Tekken).raw_spaces().ignore_merges().add_bos(),
        b"smollm" => s(P::Smollm).raw_spaces(),
        b"codeshell" => s(P::Codeshell),
        b"bloom" => s(P::Bloom),
        b"gpt3-finnish" => s(P::Gpt3Finnish),
        b"exaone" => s(P::Exaone),
        b"exaone4" => s(P::Gpt2),
        b"exaone-moe" => s(P::ExaoneMoe),
        b"chameleon" => s(P::Chameleon).add_bos().raw_spaces(),
        b"minerva-7b" => s(P::Minerva),
        b"megrez" => s(P::Qwen2),
        b"gpt-4o" | b"llama4" | b"kanana2" | b"talkie" => s(P::Gpt4o).raw_spaces(),
        b"granite-embed-multi-97m" => s(P::GraniteEmbMulti).raw_spaces().ignore_merges(),
        b"tiny_aya" | b"cohere2moe" => s(P::TinyAya).raw_spaces(),
        b"superbpe" => s(P::Superbpe).raw_spaces(),
        b"trillion" => s(P::Trillion).raw_spaces(),
        b"granite-docling" => s(P::GraniteDocling).raw_spaces(),
        b"bailingmoe" | b"bailingmoe2" | b"llada-moe" => s(P::Bailingmoe).raw_spaces(),
        b"seed-coder" => s(P::SeedCoder).raw_spaces(),
        b"hunyuan" => s(P::Hunyuan).raw_spaces(),
        b"hunyuan-dense" => s(P::HunyuanDense).raw_spaces(),
        b"hy_v4" => s(P::HyV4).raw_spaces(),
        b"joyai-llm" => s(P::JoyaiLlm).raw_spaces(),
        b"kimi-k2" => s(P::KimiK2).raw_spaces(),
        b"ufakzeka" => s(P::Ufakzeka).raw_spaces(),
        b"grok-2" => s(P::Grok2).raw_spaces(),
        b"afmoe" => s(P::Afmoe).raw_spaces(),
        b"laguna" => s(P::Laguna).raw_spaces(),
        b"minimax-m2" => s(P::MinimaxM2).raw_spaces(),
        b"solar-open" => s(P::SolarOpen).raw_spaces(),
        b"mellum2" => s(P::Mellum2),
        _ => return None,
    })
}
