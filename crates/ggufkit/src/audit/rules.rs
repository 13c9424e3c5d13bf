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
    r("tokenizer.length", Error, "Fewer scores or token types than tokens"),
    r("tokenizer.length-extra", Warning, "More scores or token types than tokens (ignored)"),
    r("tokenizer.token-type-range", Warning, "A token type outside llama.cpp's range"),
    r("tokenizer.special-id", Warning, "A special-token id outside the vocabulary (llama.cpp loads the file and uses its default)"),
    r("tokenizer.duplicate", Error, "The same token string twice in the vocabulary (llama.cpp aborts)"),
    r("tokenizer.merge-unknown", Warning, "A merge naming a token that does not exist"),
    r("tokenizer.vocab-vs-tensor", Error, "Embedding or output tensor with fewer rows than tokens"),
    r("tokenizer.missing", Error, "A tokenizer key llama.cpp's loader requires is missing"),
    r("tokenizer.unknown-model", Error, "A tokenizer.ggml.model llama.cpp does not know"),
    r("tokenizer.unknown-pre", Error, "A pre-tokenizer name llama.cpp does not know"),
    r("model.unknown-arch", Note, "An architecture whose loader rules the audit does not have"),
    r("model.missing-key", Error, "A hyperparameter llama.cpp's loader requires is missing"),
    r("model.key-type", Error, "A hyperparameter of another type than llama.cpp's loader reads"),
    r("model.hparams", Error, "Hyperparameters llama.cpp's loader rejects (layer and expert counts, n_rot)"),
    r("model.missing-tensor", Error, "A tensor llama.cpp's loader requires is missing"),
    r("model.tensor-shape", Error, "A tensor of another shape than llama.cpp's loader computes"),
    r("model.block-count", Error, "Tensors of blocks past block_count, which the loader leaves unused"),
    r("model.unused-tensor", Error, "A tensor the architecture's loader does not create (wrong number of tensors)"),
    r("spec.violation", Error, "The file breaks the GGUF spec (a gguf validate error); the rest is audited as far as the bytes allow"),
    r("model.file-type", Warning, "general.file_type contradicts the types of the tensors"),
    r("model.oldest-release", Note, "The oldest llama.cpp release that can load the file (its tensor types, its pre-tokenizer), or why none can"),
];

/// The rule of an id, `None` for an id the audit does not have.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
