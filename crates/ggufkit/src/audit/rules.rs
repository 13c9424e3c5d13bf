//! The catalog of the audit's rules: id, default severity and a one-line summary, so that a
//! renderer (SARIF's `tool.driver.rules`, a help page) lists them without restating them.
#![forbid(unsafe_code)]

use super::Severity;

/// One rule of the audit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
}

impl Rule {
    /// Whether only a [`super::Depth::Full`] audit checks it (it looks up every token string).
    pub fn full_only(&self) -> bool {
        matches!(self.id, "tokenizer.duplicate" | "tokenizer.merge-unknown")
    }
}

const fn r(id: &'static str, severity: Severity, summary: &'static str) -> Rule {
    Rule {
        id,
        severity,
        summary,
    }
}

use Severity::{Error, Note, Warning};

/// Every rule the audit can report, in the order of docs/audit.md.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    r("template.dunder", Error, "A chat template reaches a Python dunder attribute (however spelled)"),
    r("template.escape-global", Error, "A chat template dereferences a Jinja global that leads to Python internals"),
    r("template.exec", Error, "A chat template uses an os, popen, eval-like name"),
    r("template.backdoor", Warning, "A chat template puts fixed instructions into the prompt when the conversation matches a literal"),
    r("template.hidden-char", Error, "A chat template holds zero-width, bidi-control or tag characters"),
    r("template.parse", Error, "A chat template does not parse"),
    r("template.size", Warning, "A chat template of absurd size"),
    r("template.not-text", Error, "A chat template key that is not a UTF-8 string"),
    r("hidden.model-name", Warning, "Hidden characters in general.name"),
    r("hidden.special-token", Warning, "Hidden characters in a special token's text"),
    r("tokenizer.type", Error, "Tokenizer arrays or special ids of the wrong type"),
    r("tokenizer.length", Error, "Scores or token types not one per token"),
    r("tokenizer.token-type-range", Error, "A token type outside llama.cpp's range"),
    r("tokenizer.special-id", Error, "A special-token id outside the vocabulary"),
    r("tokenizer.duplicate", Warning, "The same token string twice in the vocabulary"),
    r("tokenizer.merge-unknown", Warning, "A merge naming a token that does not exist"),
    r("tokenizer.vocab-vs-tensor", Error, "Embedding or output tensor with fewer rows than tokens"),
    r("model.unknown-arch", Note, "An architecture whose shapes the audit does not check"),
    r("model.missing-tensor", Error, "A tensor every model of the architecture needs is missing"),
    r("model.embedding-length", Error, "embedding_length contradicts token_embd"),
    r("model.block-count", Error, "block_count contradicts the blk.N tensors present"),
    r("model.head-shape", Error, "Head count and length contradict the attention weights"),
    r("model.feed-forward-length", Error, "feed_forward_length contradicts the feed-forward tensors"),
    r("model.expert-count", Error, "expert_count contradicts the expert tensors"),
    r("model.file-type", Warning, "general.file_type contradicts the types of the tensors"),
];

/// The rule of an id, `None` for an id the audit does not have.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
