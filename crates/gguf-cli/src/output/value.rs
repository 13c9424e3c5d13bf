//! Metadata values as people and scripts read them: the human one-liner of `dump`, the
//! one-per-line form of `meta get` (the typed JSON object is the library's, `ggufkit::render::value`).

pub use ggufkit::escape::escape_line;
use ggufkit::Value;

use super::json::Json;

/// A value for people: strings quoted, long arrays shortened to `max` elements.
pub fn human_value(v: &Value<'_>, max: usize) -> String {
    human_value_at(v, max, usize::MAX, 0)
}

/// [`human_value`] with strings (and each string in an array) longer than `max_chars`
/// characters shortened, saying how long they are: `"{% for m in messages %}..." (12,420
/// characters)`. JSON output is never shortened.
pub fn human_value_within(v: &Value<'_>, max: usize, max_chars: usize) -> String {
    human_value_at(v, max, max_chars, 0)
}

/// A string quoted, cut to `max_chars` characters when longer.
fn quoted(s: &str, max_chars: usize) -> String {
    let n = s.chars().count();
    if n <= max_chars {
        return format!("{s:?}");
    }
    let cut: String = s.chars().take(max_chars).collect();
    let q = format!("{cut:?}");
    format!(
        "{}...\" ({} characters)",
        &q[..q.len() - 1],
        super::grouped(n as u64)
    )
}

/// Levels of nested arrays shown in the human form; deeper ones are `[...]` (a file can nest
/// arrays deeper than any stack).
const MAX_HUMAN_DEPTH: usize = 16;

fn human_value_at(v: &Value<'_>, max: usize, max_chars: usize, depth: usize) -> String {
    match v {
        Value::String(s) => quoted(&s.to_string_lossy(), max_chars),
        Value::Array(_) if depth >= MAX_HUMAN_DEPTH => "[...]".to_string(),
        Value::Array(a) => {
            let mut parts: Vec<String> = a
                .iter()
                .take(max)
                .map(|e| human_value_at(&e, max, max_chars, depth + 1))
                .collect();
            if a.len() > max as u64 {
                parts.push(format!("... {} more", super::grouped(a.len() - max as u64)));
            }
            format!("[{}]", parts.join(", "))
        }
        Value::Bool(b) => (*b != 0).to_string(),
        Value::F32(x) => format!("{x}"),
        Value::F64(x) => format!("{x}"),
        other => {
            let mut j = Json::new();
            j.value(other);
            j.out
        }
    }
}

/// A value for a person or a script: a string as it is (so a chat template keeps its lines), a
/// number as JSON writes it, an array one element per line (strings escaped so that each element
/// stays on its line; nested arrays as JSON).
pub fn human(v: &Value<'_>) -> String {
    match v {
        Value::String(s) => {
            let mut out = s.to_string_lossy().into_owned();
            out.push('\n');
            out
        }
        Value::Array(a) => {
            let mut out = String::new();
            if let Some(strings) = a.strings() {
                for s in strings {
                    out.push_str(&escape_line(&s.to_string_lossy()));
                    out.push('\n');
                }
            } else {
                for e in a.iter() {
                    out.push_str(&scalar(&e));
                    out.push('\n');
                }
            }
            out
        }
        other => format!("{}\n", scalar(other)),
    }
}

fn scalar(v: &Value<'_>) -> String {
    let mut j = Json::new();
    match v {
        Value::Array(a) => {
            j.raw("{\"element_type\":")
                .str(a.element_type().name())
                .raw(",\"value\":")
                .array(a)
                .raw("}");
        }
        Value::String(s) => return escape_line(&s.to_string_lossy()),
        other => {
            j.value(other);
        }
    }
    j.out
}
