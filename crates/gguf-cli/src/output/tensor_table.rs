//! The tensor table of `gguf tensors`: for people (aligned columns, totals) and as one JSON object
//! per file.

use ggufkit::{ReadCost, TensorInfo};

use super::cost::cost_member;
use super::json::Json;
use super::table::{Align, Table};
use super::tensor::tensor_json;
use super::{grouped, shape_text};

/// The human table of `rows`, with a totals line.
pub fn human(rows: &[TensorInfo<'_>]) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("type", Align::Left),
        ("shape", Align::Left),
        ("elements", Align::Right),
        ("bytes", Align::Right),
        ("offset", Align::Right),
    ]);
    let (mut elements, mut bytes) = (0u64, 0u64);
    for r in rows {
        elements = elements.saturating_add(r.n_elements());
        bytes = bytes.saturating_add(r.size());
        t.row(vec![
            r.name().into_owned(),
            r.tensor_type().to_string(),
            shape_text(r.shape()),
            grouped(r.n_elements()),
            grouped(r.size()),
            grouped(r.offset()),
        ]);
    }
    let footer = vec![
        format!(
            "{} tensor{}",
            grouped(rows.len() as u64),
            if rows.len() == 1 { "" } else { "s" }
        ),
        String::new(),
        String::new(),
        grouped(elements),
        grouped(bytes),
        String::new(),
    ];
    t.render(&[footer])
}

/// The JSON object of one file (with what fetching it cost, for a remote file), with a newline.
pub fn json_line(file: &str, rows: &[TensorInfo<'_>], cost: Option<ReadCost>) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("tensors").raw("[");
    let (mut elements, mut bytes) = (0u64, 0u64);
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        tensor_json(&mut j, r);
        elements = elements.saturating_add(r.n_elements());
        bytes = bytes.saturating_add(r.size());
    }
    j.raw("]");
    j.raw(",").key("total").raw("{");
    j.key("count").u64(rows.len() as u64);
    j.raw(",").key("n_elements").u64(elements);
    j.raw(",").key("size").u64(bytes).raw("}");
    cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}
