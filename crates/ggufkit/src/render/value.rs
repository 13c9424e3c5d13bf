//! A metadata pair and a typed value as the JSON outputs write them: `dump --json`, `meta get
//! --json`, `diff --json`.
#![forbid(unsafe_code)]

use crate::json::Json;
use crate::{Kv, Value};

/// A metadata entry as `dump --json` writes it.
pub fn kv_json(j: &mut Json, kv: &Kv<'_>) {
    j.raw("{").key("key").text(kv.key.as_bytes());
    j.raw(",");
    typed_value_json(j, &kv.value);
    j.raw("}");
}

/// `"type": ..., ["element_type": ...,] "value": ...` of a value, without braces.
pub fn typed_value_json(j: &mut Json, v: &Value<'_>) {
    j.key("type").str(v.value_type().name());
    if let Value::Array(a) = v {
        j.raw(",").key("element_type").str(a.element_type().name());
    }
    j.raw(",").key("value").value(v);
}
