//! The byte layout for people, as `gguf layout` prints it: a table of fields, each marked field
//! followed by its findings.

use std::fmt::Write as _;

use ggufkit::layout::{Field, FieldValue};

use super::table::{Align, Columns};
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

/// The cells of a field's row.
fn cells(f: &Field<'_>) -> [String; 5] {
    [
        f.offset.to_string(),
        format!("{:#x}", f.offset),
        f.length.to_string(),
        f.path.to_string(),
        value_text(&f.value),
    ]
}

/// The table of `fields`, each marked field followed by its findings. The rows are made twice,
/// to measure and to write, so that no row is held: a hostile header has a million fields.
pub fn layout_text(fields: &[Field<'_>], s: &Style) -> String {
    let mut columns = Columns::new(&[
        ("offset", Align::Right),
        ("hex", Align::Right),
        ("length", Align::Right),
        ("field", Align::Left),
        ("value", Align::Left),
    ]);
    for f in fields {
        columns.measure(cells(f).iter().map(String::as_str));
    }
    let findings: usize = fields.iter().map(|f| f.findings.len() * 120).sum();
    let mut out = columns.buffer_for(fields.len() + 1, findings);
    columns.header_line(&mut out);
    for f in fields {
        columns.line(&mut out, cells(f).iter().map(String::as_str));
        for x in &f.findings {
            let d = &x.diagnostic;
            // labelled by rule: the ggml rules and trailing data are the warnings
            let kind = if d.rule.id().starts_with("ggml.") || d.rule.id() == "trailing_data" {
                s.yellow("warning")
            } else {
                s.red("error")
            };
            let _ = writeln!(out, "    ^ {kind} {d}");
        }
    }
    out
}
