//! Chat templates read as Jinja programs, never rendered: parsed by minijinja's parser (through
//! its machinery API) and the syntax tree walked for the shapes of known attacks. Hidden
//! characters and the size are checked on the source itself.
#![forbid(unsafe_code)]

mod backdoor;
mod fixed_text;
mod flow;
mod positions;
mod prepare;
mod values;
mod walk;

use minijinja::machinery::parse;
use minijinja::syntax::SyntaxConfig;

use super::{hidden_char, rule, Finding, Severity};
use positions::Positions;

/// Templates above this many bytes are noted as absurd (real ones are a few tens of KiB).
const MAX_TEMPLATE: usize = 1 << 20;

/// Templates above this many bytes are not parsed (the parser's offsets are 32-bit, and no
/// template needs it): a `template.parse` error says so.
const MAX_PARSED: usize = 64 << 20;

/// Every finding of one template held by `key` (pair at `offset`).
pub fn audit_template(key: &str, offset: u64, src: &str) -> Vec<Finding> {
    let positions = Positions::new(src);
    let mut out = Vec::new();
    let mut push = |id: &'static str, message: String, at: Option<usize>| {
        let severity = rule(id).map_or(Severity::Error, |r| r.severity);
        let mut f = Finding::new(id, severity, key, offset, message);
        f.position = at.map(|b| positions.at(b));
        out.push(f);
    };
    if src.len() > MAX_TEMPLATE {
        push(
            "template.size",
            format!(
                "the template is {} bytes (more than {MAX_TEMPLATE})",
                src.len()
            ),
            None,
        );
    }
    if let Some((i, c, what)) = src
        .char_indices()
        .find_map(|(i, c)| hidden_char(c).map(|w| (i, c, w)))
    {
        push(
            "template.hidden-char",
            format!("a {what} character U+{:04X}", c as u32),
            Some(i),
        );
    }
    if src.len() > MAX_PARSED {
        push(
            "template.parse",
            format!("the template is too large to be parsed (more than {MAX_PARSED} bytes)"),
            None,
        );
        return out;
    }
    let prepared = match prepare::prepare(src) {
        Ok(p) => p,
        Err((message, at)) => {
            push("template.parse", message, Some(at));
            return out;
        }
    };
    match parse(&prepared, "chat_template", SyntaxConfig::default()) {
        Ok(tree) => {
            for h in walk::walk(&tree).into_iter().chain(backdoor::find(&tree)) {
                push(h.rule, h.message, Some(h.at));
            }
        }
        Err(e) => push(
            "template.parse",
            prepare::parse_message(&e),
            Some(e.range().map_or(0, |r| r.start)),
        ),
    }
    out
}
