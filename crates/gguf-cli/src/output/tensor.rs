//! A tensor info as JSON, the one object `tensors --json`, `dump --json` and `diff` share.

use ggufkit::TensorInfo;

use super::json::Json;

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
