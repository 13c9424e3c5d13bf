//! The byte layout for people, as `gguf layout` prints it: a table of fields, each marked field
//! followed by its findings.

use ggufkit::layout::{Field, FieldValue};

use super::table::{Align, Table};
use super::value::human_value;
use super::{grouped, shorten, Style};

fn value_text(v: &FieldValue<'_>) -> String {
    match v {
        FieldValue::None => String::new(),
        FieldValue::Int(n) => n.to_string(),
        FieldValue::ValueType(t) => t.name().to_string(),
        FieldValue::TensorType(t) => t.to_string(),
        FieldValue::Elements(n) => {
            format!("{} element{}", grouped(*n), if *n == 1 { "" } else { "s" })
        }
        FieldValue::Text(b) => shorten(format!("{:?}", String::from_utf8_lossy(b)), 60),
        FieldValue::Value(v) => human_value(v, 8),
    }
}

/// The table of `fields`.
pub fn layout_text(fields: &[Field<'_>], s: &Style) -> String {
    let mut t = Table::new(&[
        ("offset", Align::Right),
        ("hex", Align::Right),
        ("length", Align::Right),
        ("field", Align::Left),
        ("value", Align::Left),
    ]);
    for f in fields {
        t.row(vec![
            f.offset.to_string(),
            format!("{:#x}", f.offset),
            f.length.to_string(),
            f.path.to_string(),
            value_text(&f.value),
        ]);
    }
    let text = t.render(&[]);
    if fields.iter().all(|f| f.findings.is_empty()) {
        return text;
    }
    // a marked field is followed by its findings (the first line is the table's header)
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        let Some(f) = i.checked_sub(1).and_then(|k| fields.get(k)) else {
            continue;
        };
        for x in &f.findings {
            let d = &x.diagnostic;
            // labelled by rule: the ggml rules and trailing data are the warnings
            let kind = if d.rule.id().starts_with("ggml.") || d.rule.id() == "trailing_data" {
                s.yellow("warning")
            } else {
                s.red("error")
            };
            out.push_str(&format!(
                "    ^ {kind} at byte {}: {} [{}]\n",
                d.offset, d.message, d.rule
            ));
        }
    }
    out
}
