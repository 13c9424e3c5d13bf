//! A tensor info as JSON, the one object `tensors --json`, `dump --json` and `diff` share.

use ggufkit::TensorInfo;

use super::json::Json;

/// One tensor's JSON object.
pub fn tensor_json(j: &mut Json, t: &TensorInfo<'_>) {
    j.raw("{").key("name").text(t.name_bytes());
    j.raw(",").key("type").str(t.ggml_type().name());
    j.raw(",").key("shape").raw("[");
    for (k, d) in t.shape().iter().enumerate() {
        if k > 0 {
            j.raw(",");
        }
        j.u64(*d);
    }
    j.raw("]");
    j.raw(",").key("n_elements").u64(t.n_elements());
    j.raw(",").key("size").u64(t.size());
    j.raw(",").key("offset").u64(t.offset());
    j.raw("}");
}
