//! A tensor info as JSON, the one object `tensors --json`, `dump --json` and `diff` share, and
//! the table of `tensors --json`.
#![forbid(unsafe_code)]

use crate::json::Json;
use crate::location::ReadCost;
use crate::TensorInfo;

use super::cost_member;

/// One tensor's JSON object.
pub fn tensor_json(j: &mut Json, t: &TensorInfo<'_>) {
    j.raw("{").key("name").text(t.name_bytes());
    j.raw(",").tensor_type(t.tensor_type());
    j.raw(",").key("shape");
    shape_json(j, t.shape());
    j.raw(",").key("n_elements").u64(t.n_elements());
    j.raw(",").key("size").u64(t.size());
    j.raw(",").key("offset").u64(t.offset());
    j.raw("}");
}

/// Dimensions as a JSON array of integers, as stored (ne0 first).
pub fn shape_json(j: &mut Json, shape: &[u64]) {
    j.raw("[");
    for (k, d) in shape.iter().enumerate() {
        if k > 0 {
            j.raw(",");
        }
        j.u64(*d);
    }
    j.raw("]");
}

/// The JSON object of one file (with what fetching it cost, for a remote file), with a newline.
pub fn tensors_json(file: &str, rows: &[TensorInfo<'_>], cost: Option<ReadCost>) -> String {
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
