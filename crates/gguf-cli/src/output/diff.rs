//! `gguf diff` rendered: a unified-diff-like text for people (`-` only in A, `+` only in B, `~`
//! changed, coloured on a terminal) and one JSON object.

use ggufkit::diff::{Diff, HeaderChange};
use ggufkit::render::tensor::tensor_json;
use ggufkit::render::value::{kv_json, typed_value_json};
use ggufkit::{ArrayView, TensorInfo, Value};

use super::json::Json;
use super::value::human_value;
use super::{counted, grouped, shape_text, Style};

/// A value shortened to about 100 characters.
fn short(v: &Value<'_>) -> String {
    let s = human_value(v, 4);
    if s.chars().count() > 100 {
        let cut: String = s.chars().take(97).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn type_text(v: &Value<'_>) -> String {
    match v {
        Value::Array(a) => format!(
            "array[{}; {}]",
            a.element_type().name(),
            super::grouped(a.len())
        ),
        other => other.value_type().name().to_string(),
    }
}

fn tensor_text(t: &TensorInfo<'_>) -> String {
    format!("{} {}", t.tensor_type(), shape_text(t.shape()))
}

/// A header field's two values as text.
fn header_values(h: &HeaderChange) -> (String, String) {
    match h {
        HeaderChange::Version(a, b) | HeaderChange::Alignment(a, b) => {
            (a.to_string(), b.to_string())
        }
        HeaderChange::Endian(a, b) => (a.name().to_string(), b.name().to_string()),
    }
}

/// The text for people; `na` and `nb` name the two files.
pub fn human(na: &str, nb: &str, d: &Diff<'_, '_>, s: &Style) -> String {
    let mut out = String::new();
    out.push_str(&format!("--- {na}\n+++ {nb}\n"));
    if d.is_empty() {
        out.push_str("no differences: same header, metadata and tensors (type, shape, data)\n");
        return out;
    }
    if !d.header.is_empty() {
        out.push_str(&format!("{}\n", s.bold("header")));
        for h in &d.header {
            let (a, b) = header_values(h);
            out.push_str(&format!("  ~ {}: {a} -> {b}\n", h.field()));
        }
    }
    let m = &d.metadata;
    if !(m.added.is_empty() && m.removed.is_empty() && m.changed.is_empty()) {
        out.push_str(&format!("{}\n", s.bold("metadata")));
        for kv in &m.removed {
            out.push_str(&s.red(&format!(
                "  - {} ({}) = {}",
                kv.key(),
                type_text(&kv.value),
                short(&kv.value)
            )));
            out.push('\n');
        }
        for kv in &m.added {
            out.push_str(&s.green(&format!(
                "  + {} ({}) = {}",
                kv.key(),
                type_text(&kv.value),
                short(&kv.value)
            )));
            out.push('\n');
        }
        for c in &m.changed {
            out.push_str(&s.yellow(&format!("  ~ {}", c.key)));
            out.push('\n');
            match (c.first_difference, &c.a, &c.b) {
                (Some(i), Value::Array(x), Value::Array(y)) => {
                    let el = |a: &ArrayView<'_>| {
                        a.get(i)
                            .map(|v| short(&v))
                            .unwrap_or_else(|| "(none: the array ends)".into())
                    };
                    out.push_str(&format!(
                        "      arrays of {}: lengths {} and {}, first difference at index {}: {} -> {}\n",
                        x.element_type().name(),
                        grouped(x.len()),
                        grouped(y.len()),
                        grouped(i),
                        el(x),
                        el(y)
                    ));
                }
                _ => {
                    out.push_str(&format!(
                        "      a: ({}) {}\n      b: ({}) {}\n",
                        type_text(&c.a),
                        short(&c.a),
                        type_text(&c.b),
                        short(&c.b)
                    ));
                }
            }
        }
    }
    let t = &d.tensors;
    if !(t.added.is_empty() && t.removed.is_empty() && t.changed.is_empty()) {
        out.push_str(&format!("{}\n", s.bold("tensors")));
        for r in &t.removed {
            out.push_str(&s.red(&format!("  - {} {}", r.name(), tensor_text(r))));
            out.push('\n');
        }
        for a in &t.added {
            out.push_str(&s.green(&format!("  + {} {}", a.name(), tensor_text(a))));
            out.push('\n');
        }
        for c in &t.changed {
            let mut what = Vec::new();
            if c.type_changed {
                what.push(format!(
                    "type {} -> {}",
                    c.a.tensor_type(),
                    c.b.tensor_type()
                ));
            }
            if c.shape_changed {
                what.push(format!(
                    "shape {} -> {}",
                    shape_text(c.a.shape()),
                    shape_text(c.b.shape())
                ));
            }
            if let Some((x, y)) = &c.data {
                what.push(format!("data xxh64 {x} -> {y}"));
            }
            out.push_str(&s.yellow(&format!("  ~ {}: {}", c.a.name(), what.join("; "))));
            out.push('\n');
        }
    }
    let n = d.count();
    out.push_str(&format!(
        "{}: header {}, metadata +{} -{} ~{}, tensors +{} -{} ~{}\n",
        counted(n as u64, "difference", "differences"),
        grouped(d.header.len() as u64),
        grouped(m.added.len() as u64),
        grouped(m.removed.len() as u64),
        grouped(m.changed.len() as u64),
        grouped(t.added.len() as u64),
        grouped(t.removed.len() as u64),
        grouped(t.changed.len() as u64)
    ));
    out
}

/// A tensor object with the data hash appended.
fn tensor_side(j: &mut Json, t: &TensorInfo<'_>, hash: Option<String>) {
    let mut inner = Json::new();
    tensor_json(&mut inner, t);
    let body = inner.out.trim_end_matches('}');
    j.raw(body);
    if let Some(h) = hash {
        j.raw(",").key("xxh64").str(&h);
    }
    j.raw("}");
}

/// Writes `items` as a JSON array with `one` writing each.
fn list<T>(j: &mut Json, items: &[T], mut one: impl FnMut(&mut Json, &T)) {
    j.raw("[");
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        one(j, x);
    }
    j.raw("]");
}

/// The JSON object, with a newline; `na` and `nb` name the two files.
pub fn json(na: &str, nb: &str, d: &Diff<'_, '_>) -> String {
    let mut j = Json::new();
    j.raw("{").key("a").str(na);
    j.raw(",").key("b").str(nb);
    j.raw(",").key("equal").bool(d.is_empty());
    j.raw(",").key("header");
    list(&mut j, &d.header, |j, h| {
        j.raw("{").key("field").str(h.field()).raw(",").key("a");
        match h {
            HeaderChange::Endian(a, b) => j.str(a.name()).raw(",").key("b").str(b.name()),
            HeaderChange::Version(a, b) | HeaderChange::Alignment(a, b) => {
                j.u64((*a).into()).raw(",").key("b").u64((*b).into())
            }
        };
        j.raw("}");
    });
    let m = &d.metadata;
    j.raw(",").key("metadata").raw("{").key("added");
    list(&mut j, &m.added, kv_json);
    j.raw(",").key("removed");
    list(&mut j, &m.removed, kv_json);
    j.raw(",").key("changed");
    list(&mut j, &m.changed, |j, c| {
        j.raw("{").key("key").str(&c.key);
        j.raw(",").key("a").raw("{");
        typed_value_json(j, &c.a);
        j.raw("},").key("b").raw("{");
        typed_value_json(j, &c.b);
        j.raw("},").key("first_difference");
        match c.first_difference {
            Some(n) => j.u64(n),
            None => j.raw("null"),
        };
        j.raw("}");
    });
    j.raw("}");
    let t = &d.tensors;
    j.raw(",").key("tensors").raw("{").key("added");
    list(&mut j, &t.added, tensor_json);
    j.raw(",").key("removed");
    list(&mut j, &t.removed, tensor_json);
    j.raw(",").key("changed");
    list(&mut j, &t.changed, |j, c| {
        j.raw("{").key("name").text(c.a.name_bytes());
        j.raw(",").key("changes").raw("[");
        let mut first = true;
        for (on, what) in [
            (c.type_changed, "type"),
            (c.shape_changed, "shape"),
            (c.data_changed(), "data"),
        ] {
            if on {
                if !first {
                    j.raw(",");
                }
                first = false;
                j.str(what);
            }
        }
        j.raw("],").key("a");
        tensor_side(j, &c.a, c.data.map(|h| h.0.to_string()));
        j.raw(",").key("b");
        tensor_side(j, &c.b, c.data.map(|h| h.1.to_string()));
        j.raw("}");
    });
    j.raw("}}\n");
    j.out
}
