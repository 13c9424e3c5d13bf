//! The byte layout as `gguf layout --json` writes it: a list of
//! `{path, offset, length, value}` (plus `errors` on marked fields).
#![forbid(unsafe_code)]

use std::io::Write;

use crate::json::Json;
use crate::layout::{Field, FieldValue};

use super::diagnostic_json;

fn value_json(j: &mut Json, v: &FieldValue<'_>) {
    match v {
        FieldValue::None | FieldValue::Elements(_) => {
            j.raw("null");
        }
        FieldValue::Int(n) => {
            j.u64(*n);
        }
        FieldValue::ValueType(t) => {
            j.str(t.name());
        }
        FieldValue::TensorType(t) => {
            j.str(t.name());
        }
        FieldValue::Text(b) => {
            j.text(b);
        }
        FieldValue::Value(v) => {
            j.value(v);
        }
    }
}

/// The JSON list of `fields`, with a newline, as one string (for a program that hands it on
/// whole: the WebAssembly package).
pub fn layout_json(fields: &[Field<'_>]) -> String {
    let mut out = Vec::new();
    // writing into a Vec cannot fail
    let _ = write_layout_json(fields, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the JSON list of `fields`, with a newline, to `out` a piece at a time: a hostile header
/// has a million fields, whose whole list would be a string many times the file.
pub fn write_layout_json(fields: &[Field<'_>], out: &mut dyn Write) -> std::io::Result<()> {
    let mut j = Json::new();
    j.raw("[");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            j.raw(",\n");
        }
        field_json(&mut j, f);
        if j.out.len() >= 1 << 16 {
            out.write_all(j.out.as_bytes())?;
            j.out.clear();
        }
    }
    j.raw("]\n");
    out.write_all(j.out.as_bytes())?;
    out.flush()
}

fn field_json(j: &mut Json, f: &Field<'_>) {
    j.raw("{").key("path").str(&f.path.to_string());
    j.raw(",").key("offset").u64(f.offset);
    j.raw(",").key("length").u64(f.length);
    j.raw(",").key("value");
    value_json(j, &f.value);
    if !f.findings.is_empty() {
        j.raw(",").key("errors").raw("[");
        for (k, x) in f.findings.iter().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            diagnostic_json(j, &x.diagnostic);
        }
        j.raw("]");
    }
    j.raw("}");
}
