//! The header as `gguf dump --json` writes it: the contract's object, complete (no array
//! shortened).
#![forbid(unsafe_code)]

use crate::json::Json;
use crate::location::ReadCost;
use crate::Gguf;

use super::cost_member;
use super::value::kv_json;

/// The contract's `dump --json` object (with what fetching it cost, for a remote file), with a
/// newline.
pub fn dump_json(g: &Gguf<'_>, cost: Option<ReadCost>) -> String {
    let mut j = Json::new();
    j.raw("{").key("version").u64(g.version().into());
    j.raw(",").key("endian").str(g.endian().name());
    j.raw(",").key("alignment").u64(g.alignment().into());
    j.raw(",").key("tensor_data_offset").u64(g.data_offset());
    j.raw(",").key("file_size").u64(g.expected_len());
    j.raw(",").key("metadata").raw("[");
    for (i, kv) in g.metadata().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        kv_json(&mut j, &kv);
    }
    j.raw("]");
    j.raw(",").key("tensors").raw("[");
    for (i, t) in g.tensors().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").text(t.name_bytes());
        j.raw(",").tensor_type(t.tensor_type());
        j.raw(",").key("shape");
        super::tensor::shape_json(&mut j, t.shape());
        j.raw(",").key("offset").u64(t.offset());
        j.raw(",").key("size").u64(t.size()).raw("}");
    }
    j.raw("]");
    cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}
