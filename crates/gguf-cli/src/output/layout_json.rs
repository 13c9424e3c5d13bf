//! The byte layout as `gguf layout --json` writes it: a list of
//! `{path, offset, length, value}` (plus `errors` on marked fields).

use ggufkit::layout::{Field, FieldValue};

use super::json::Json;

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

/// The JSON list of `fields`, with a newline.
pub fn layout_json(fields: &[Field<'_>]) -> String {
    let mut j = Json::new();
    j.raw("[");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            j.raw(",\n");
        }
        j.raw("{").key("path").str(&f.path.to_string());
        j.raw(",").key("offset").u64(f.offset);
        j.raw(",").key("length").u64(f.length);
        j.raw(",").key("value");
        value_json(&mut j, &f.value);
        if !f.findings.is_empty() {
            j.raw(",").key("errors").raw("[");
            for (k, x) in f.findings.iter().enumerate() {
                let d = &x.diagnostic;
                if k > 0 {
                    j.raw(",");
                }
                j.raw("{").key("rule").str(d.rule.id());
                j.raw(",").key("offset").u64(d.offset);
                j.raw(",").key("message").str(&d.message).raw("}");
            }
            j.raw("]");
        }
        j.raw("}");
    }
    j.raw("]\n");
    j.out
}
