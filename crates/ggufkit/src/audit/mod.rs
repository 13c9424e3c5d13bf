//! `audit`: what a valid file can still hide. Chat templates that reach Python internals or carry
//! a backdoor, hidden characters, a tokenizer that contradicts itself, hyperparameters that
//! contradict the tensors, and whether llama.cpp's loader would refuse the file (each
//! architecture's keys and tensor shapes, [`loader`]), and which llama.cpp release can load it
//! (the table of [`crate::releases`]). Templates are never rendered: they are scanned as Jinja source.
#![forbid(unsafe_code)]

mod chars;
mod file_type;
mod finding;
pub mod loader;
mod release;
mod rules;
mod spec;
mod template;
mod tokenizer;
mod vocab;

pub use chars::hidden_char;
pub use finding::{Finding, Severity};
pub use rules::{rule, Rule, RULES};
pub use spec::spec_findings;
pub use template::audit_template;

use crate::Gguf;

/// The `model.file-type` finding alone: `general.file_type` names a preset whose plan gives most
/// of the file's quantizable tensors another type than they have (what `gguf info` warns of).
pub fn file_type_finding(g: &Gguf<'_>) -> Option<Finding> {
    let mut out = Vec::new();
    file_type::audit_file_type(g, &mut out);
    out.pop()
}

/// How much of a file an audit reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Depth {
    /// Every rule: what `gguf audit` runs.
    #[default]
    Full,
    /// Every rule but the two that look up every token string (`tokenizer.duplicate`,
    /// `tokenizer.merge-unknown`, the [`Rule::full_only`] ones): those cost a few random reads
    /// per token, several times what reading the header costs, so a scan of many files runs
    /// this unless told otherwise.
    Header,
}

/// Every finding of a file, in the order: templates, hidden characters, tokenizer, model, file
/// type, the oldest llama.cpp release that loads it.
pub fn audit(g: &Gguf<'_>) -> Vec<Finding> {
    audit_with(g, Depth::Full)
}

/// The findings of a file at `depth`, in the order of [`audit`].
pub fn audit_with(g: &Gguf<'_>, depth: Depth) -> Vec<Finding> {
    let mut out = Vec::new();
    for kv in g.metadata() {
        let key = kv.key();
        if key == "tokenizer.chat_template" || key.starts_with("tokenizer.chat_template.") {
            match kv.value.as_str() {
                Some(src) => out.extend(audit_template(&key, kv.offset, src)),
                None => out.push(Finding::new(
                    "template.not-text",
                    Severity::Error,
                    &key,
                    kv.offset,
                    "a chat template key that does not hold a UTF-8 string".into(),
                )),
            }
        }
    }
    chars::audit_names(g, &mut out);
    tokenizer::audit_tokenizer(g, depth, &mut out);
    loader::audit_loader(g, &mut out);
    file_type::audit_file_type(g, &mut out);
    release::audit_release(g, &mut out);
    out
}
