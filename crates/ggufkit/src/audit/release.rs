//! `model.oldest-release`: the oldest llama.cpp release that can load the file, the newest of
//! what it needs (each tensor type id, the BPE pre-tokenizer, the architecture) by the table of
//! [`crate::releases`]; or why none can (a fork's type, a type or architecture llama.cpp
//! removed or never loaded, a name no release knows).
#![forbid(unsafe_code)]

use super::{Finding, Severity};
use crate::releases::{self, ArchSupport, Introduced, Tag, TypeSupport, HORIZON, PRE_TOKENIZERS};
use crate::tensor_type::{OtherType, TensorType};
use crate::tokenizer::Model;
use crate::Gguf;

const RULE: &str = "model.oldest-release";

/// One thing the file needs of llama.cpp: what it is (for the message), where, since when.
struct Need {
    what: String,
    subject: String,
    offset: u64,
    since: Introduced,
}

/// Why no release loads the file: where, and the sentence.
struct Blocker {
    subject: String,
    offset: u64,
    why: String,
}

pub(super) fn audit_release(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    let mut needs = Vec::new();
    let mut blockers = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for t in g.tensors() {
        let ty = t.tensor_type();
        if ids.contains(&ty.id()) {
            continue;
        }
        ids.push(ty.id());
        let name = t.name();
        let subject = name.to_string();
        let offset = t.info_offset();
        match type_need(ty) {
            Ok(since) => needs.push(Need {
                what: format!("tensor '{name}' is {}", ty.name()),
                subject,
                offset,
                since,
            }),
            Err(why) => blockers.push(Blocker {
                why: format!("tensor '{name}' {why}"),
                subject,
                offset,
            }),
        }
    }
    pre_need(g, &mut needs, &mut blockers);
    arch_need(g, &mut needs, &mut blockers);
    if let Some(f) = blocked(&blockers) {
        out.push(f);
    } else if let Some(f) = oldest(&needs) {
        out.push(f);
    }
}

/// Since when llama.cpp reads a tensor type, or why no release does (a clause after the
/// tensor's name).
fn type_need(ty: TensorType) -> Result<Introduced, String> {
    let id = ty.id();
    if let Some(OtherType::Reused(t)) = ty.other() {
        return Err(format!(
            "has id {id}, ggml's {}, but not its size: a type of a TurboQuant fork under a reused id, which no llama.cpp release reads",
            t.name()
        ));
    }
    match releases::type_support(id) {
        TypeSupport::Since(i) => Ok(i),
        TypeSupport::Removed { loaded, removed } => Err(format!(
            "is {} (id {id}), which only the releases from {} ({}) until {} ({}) read",
            ty.name(),
            loaded.tag,
            loaded.source,
            removed.tag,
            removed.source
        )),
        TypeSupport::Never(why) => Err(format!(
            "has type {} (id {id}), {why}; no llama.cpp release reads it",
            ty.name()
        )),
        TypeSupport::Fork(f) => Err(format!(
            "has type {} (id {id}), a type of {}, which no llama.cpp release reads",
            f.name, f.origin
        )),
        TypeSupport::Unknown => Err(format!(
            "has type id {id}, which neither ggml nor a fork in this audit's table has"
        )),
    }
}

/// A BPE vocabulary's pre-tokenizer: llama.cpp refuses a name it does not know (since the
/// release that made the key mean something).
fn pre_need(g: &Gguf<'_>, needs: &mut Vec<Need>, blockers: &mut Vec<Blocker>) {
    let model = g
        .get_str("tokenizer.ggml.model")
        .and_then(|m| Model::from_name(m.as_bytes()));
    if model != Some(Model::Bpe) {
        return;
    }
    let Some(kv) = g.get_kv("tokenizer.ggml.pre") else {
        return;
    };
    let Some(pre) = kv.value.as_str() else {
        return; // the tokenizer's own finding
    };
    let subject = "tokenizer.ggml.pre".to_string();
    match releases::pre_tokenizer(pre) {
        Some(since) => needs.push(Need {
            what: format!("its pre-tokenizer is `{pre}`"),
            subject,
            offset: kv.offset,
            since,
        }),
        None => blockers.push(Blocker {
            why: format!(
                "tokenizer.ggml.pre is `{pre}`, a pre-tokenizer no release knows (to {HORIZON}; those before {}, {}, ignored the key)",
                PRE_TOKENIZERS.tag, PRE_TOKENIZERS.source
            ),
            subject,
            offset: kv.offset,
        }),
    }
}

/// The architecture (`general.architecture`): llama.cpp refuses one it has no loader for. A
/// multimodal projector's `clip` is no need: it is loaded beside a model, which dates it.
fn arch_need(g: &Gguf<'_>, needs: &mut Vec<Need>, blockers: &mut Vec<Blocker>) {
    let Some(kv) = g.get_kv("general.architecture") else {
        return;
    };
    let Some(arch) = kv.value.as_str() else {
        return; // the spec's own finding
    };
    let subject = "general.architecture".to_string();
    let offset = kv.offset;
    let why = match releases::architecture(arch) {
        ArchSupport::Since(since) => {
            needs.push(Need {
                what: format!("architecture '{arch}'"),
                subject,
                offset,
                since,
            });
            return;
        }
        ArchSupport::Companion(_) => return,
        ArchSupport::Removed { loaded, removed } => format!(
            "general.architecture is '{arch}', which only the releases from {} ({}) until {} ({}) load",
            loaded.tag, loaded.source, removed.tag, removed.source
        ),
        ArchSupport::Never(why) => format!("general.architecture is '{arch}', {why}"),
        ArchSupport::Unknown => format!(
            "general.architecture is '{arch}', an architecture no release knows (to {HORIZON}), which llama.cpp refuses (`unknown model architecture`)"
        ),
    };
    blockers.push(Blocker {
        subject,
        offset,
        why,
    });
}

/// The note for a file no release loads: the first reason, and how many more.
fn blocked(blockers: &[Blocker]) -> Option<Finding> {
    let first = blockers.first()?;
    let more = match blockers.len() - 1 {
        0 => String::new(),
        1 => " (and 1 more such need)".into(),
        n => format!(" (and {n} more such needs)"),
    };
    Some(Finding::new(
        RULE,
        Severity::Note,
        &first.subject,
        first.offset,
        format!("no llama.cpp release can load it: {}{more}", first.why),
    ))
}

/// The note of the oldest release: the newest dated need, and the needs no source dates.
fn oldest(needs: &[Need]) -> Option<Finding> {
    let newest = needs
        .iter()
        .filter(|n| n.since.tag.number().is_some())
        .fold(None::<&Need>, |best, n| match best {
            Some(b) if b.since.tag.number() >= n.since.tag.number() => Some(b),
            _ => Some(n),
        });
    let undated: Vec<&Need> = needs
        .iter()
        .filter(|n| n.since.tag == Tag::Unknown)
        .collect();
    let dated = |n: &Need| {
        let Some(b) = n.since.tag.number() else {
            return String::new();
        };
        format!(
            "llama.cpp b{b} or later{}",
            if n.since.tag.is_approximate() {
                " (approximately)"
            } else {
                ""
            }
        )
    };
    let (subject, offset, message) = match (undated.first(), newest) {
        (None, None) => return None,
        (None, Some(n)) => (
            &n.subject,
            n.offset,
            format!("needs {}: {}, from {}", dated(n), n.what, n.since.source),
        ),
        (Some(u), newest) => {
            let rest = match undated.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more undated needs)"),
            };
            let otherwise = newest.map_or(String::new(), |n| {
                format!("; the rest needs {} ({})", dated(n), n.what)
            });
            (
                &u.subject,
                u.offset,
                format!(
                    "needs a llama.cpp release this audit does not date (the release tag is unknown): {}, from {}{rest}{otherwise}",
                    u.what, u.since.source
                ),
            )
        }
    };
    Some(Finding::new(RULE, Severity::Note, subject, offset, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(what: &str, tag: Tag) -> Need {
        Need {
            what: what.into(),
            subject: what.into(),
            offset: 8,
            since: Introduced {
                tag,
                source: "a source",
            },
        }
    }

    #[test]
    fn an_undated_need_is_said_to_be_undated() {
        // the table dates every name today; a name it learns without a date is said undated
        let f = oldest(&[
            need("tensor 'a' is x", Tag::About(6096)),
            need("its pre-tokenizer is `new`", Tag::Unknown),
            need("architecture 'newer'", Tag::Unknown),
        ])
        .unwrap();
        assert_eq!(
            f.message,
            "needs a llama.cpp release this audit does not date (the release tag is unknown): its pre-tokenizer is `new`, from a source (and 1 more undated needs); the rest needs llama.cpp b6096 or later (approximately) (tensor 'a' is x)"
        );
        assert_eq!(f.subject, "its pre-tokenizer is `new`");
        let f = oldest(&[need("w", Tag::Exact(100)), need("v", Tag::About(99))]).unwrap();
        assert_eq!(f.message, "needs llama.cpp b100 or later: w, from a source");
        assert!(oldest(&[]).is_none());
    }
}
