//! The model summary in the contract's JSON form (`docs/json.md`): what `gguf info --json` prints
//! for each file and what the Python package's `summary()` returns, written once so that both
//! give the same answer. Every fact of [`Summary`], its numbers exact.

#![forbid(unsafe_code)]

use super::{ChatTemplate, Summary};
use crate::json::Json;
use crate::Report;

fn opt_u64(j: &mut Json, v: Option<u64>) {
    match v {
        Some(v) => j.u64(v),
        None => j.raw("null"),
    };
}

fn opt_str(j: &mut Json, v: Option<&str>) {
    match v {
        Some(v) => j.str(v),
        None => j.raw("null"),
    };
}

/// The object for `file`, with the verdicts of `report`, and a newline.
pub fn summary_json(file: &str, report: &Report, m: &Summary) -> String {
    let mut j = Json::new();
    j.raw("{");
    summary_members(&mut j, file, report, m);
    j.raw("}\n");
    j.out
}

/// The members of [`summary_json`]'s object, without its braces: for a program that adds members
/// of its own (`gguf info --json --context N`, what a remote read cost) after them.
pub fn summary_members(j: &mut Json, file: &str, report: &Report, m: &Summary) {
    let f = &m.format;
    j.key("file").str(file);
    j.raw(",").key("valid").bool(report.valid());
    j.raw(",")
        .key("ggml_compatible")
        .bool(report.ggml_compatible());
    j.raw(",").key("version").u64(f.version.into());
    j.raw(",").key("endian").str(f.endian.name());
    j.raw(",").key("alignment").u64(f.alignment.into());
    j.raw(",").key("tensor_data_offset").u64(f.header_bytes);
    j.raw(",").key("file_size").u64(f.file_size);
    j.raw(",").key("bytes_present");
    opt_u64(j, f.bytes_present);
    j.raw(",").key("kv_count").u64(f.kv_count);
    j.raw(",").key("tensor_count").u64(m.tensor_count());
    j.raw(",").key("architecture");
    opt_str(j, m.architecture.as_deref());
    j.raw(",").key("name");
    opt_str(j, m.name.as_deref());
    j.raw(",").key("file_type");
    match m.file_type {
        Some(t) => {
            j.raw("{").key("id").u64(t.0.into());
            j.raw(",").key("name");
            opt_str(j, t.name());
            j.raw("}");
        }
        None => {
            j.raw("null");
        }
    }
    j.raw(",").key("file_type_mismatch");
    opt_str(j, m.file_type_mismatch.as_deref());
    j.raw(",").key("parameters").u64(m.parameters);
    j.raw(",").key("tensor_data_size").u64(m.tensor_data_bytes);
    j.raw(",").key("bits_per_weight");
    match m.bits_per_weight() {
        Some(b) => j.f64(b),
        None => j.raw("null"),
    };
    j.raw(",").key("types").raw("[");
    for (i, t) in m.types.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").tensor_type(t.ggml_type);
        j.raw(",").key("tensors").u64(t.tensors);
        j.raw(",").key("n_elements").u64(t.elements);
        j.raw(",").key("size").u64(t.bytes);
        j.raw(",").key("percent").f64(t.percent).raw("}");
    }
    j.raw("]");
    let hp = &m.hyperparameters;
    j.raw(",").key("hyperparameters").raw("{");
    for (i, (k, v)) in [
        ("context_length", hp.context_length),
        ("embedding_length", hp.embedding_length),
        ("block_count", hp.block_count),
        ("head_count", hp.head_count),
        ("head_count_kv", hp.head_count_kv),
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            j.raw(",");
        }
        j.key(k);
        opt_u64(j, v);
    }
    j.raw("}");
    j.raw(",").key("kv_cache");
    match &m.kv_cache {
        Some(kv) => {
            j.raw("{").key("n_layer").u64(kv.n_layer);
            j.raw(",").key("kv_heads_total").u64(kv.kv_heads_total);
            j.raw(",").key("head_count_kv");
            opt_u64(j, kv.head_count_kv);
            j.raw(",").key("key_length").u64(kv.key_length);
            j.raw(",").key("value_length").u64(kv.value_length);
            j.raw(",")
                .key("lengths_from_keys")
                .bool(kv.lengths_from_keys);
            j.raw(",").key("element_bytes").u64(kv.element_bytes);
            j.raw(",").key("bytes_per_token").u64(kv.bytes_per_token);
            j.raw(",").key("context_length");
            opt_u64(j, kv.context_length);
            j.raw(",").key("bytes_at_context_length");
            opt_u64(j, kv.at_full_context());
            j.raw(",").key("sliding_window");
            opt_u64(j, kv.sliding_window);
            j.raw("}");
        }
        None => {
            j.raw("null");
        }
    }
    j.raw(",").key("tokenizer");
    match &m.tokenizer {
        Some(t) => {
            j.raw("{").key("model");
            opt_str(j, t.model.as_deref());
            j.raw(",").key("pre");
            opt_str(j, t.pre.as_deref());
            j.raw(",").key("vocab_size");
            opt_u64(j, t.vocab_size);
            j.raw(",").key("merges");
            opt_u64(j, t.merges);
            j.raw(",").key("special").raw("[");
            for (i, x) in t.special.iter().enumerate() {
                if i > 0 {
                    j.raw(",");
                }
                j.raw("{").key("role").str(x.role.name());
                j.raw(",").key("id").u64(x.id);
                j.raw(",").key("text");
                opt_str(j, x.text.as_deref());
                j.raw("}");
            }
            j.raw("]}");
        }
        None => {
            j.raw("null");
        }
    }
    j.raw(",").key("chat_template");
    match m.chat_template {
        Some(ChatTemplate::Text { bytes }) => {
            j.raw("{").key("type").str("string");
            j.raw(",").key("size").u64(bytes).raw("}");
        }
        Some(ChatTemplate::NotText { value_type }) => {
            j.raw("{").key("type").str(value_type.name());
            j.raw(",").key("size").raw("null}");
        }
        None => {
            j.raw("null");
        }
    }
    j.raw(",").key("layers").raw("[");
    for (i, l) in m.layers.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("layer").u64(l.layer);
        j.raw(",").key("size").u64(l.bytes());
        j.raw(",").key("types").raw("[");
        for (k, (t, b)) in l.by_type.iter().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            j.raw("{").tensor_type(*t);
            j.raw(",").key("size").u64(*b).raw("}");
        }
        j.raw("]}");
    }
    j.raw("]");
    j.raw(",").key("outside_layers").raw("[");
    for (i, p) in m.outside_layers.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("prefix").str(&p.prefix);
        j.raw(",").key("size").u64(p.bytes).raw("}");
    }
    j.raw("]");
}
