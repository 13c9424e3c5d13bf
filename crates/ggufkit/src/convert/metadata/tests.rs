//! Unit tests of the general metadata derivation (`convert/metadata.rs`).
#![forbid(unsafe_code)]

use super::*;

fn parts(
    id: &str,
    total: i64,
) -> (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
) {
    let c = get_model_id_components(Some(id), total);
    (c.basename, c.size_label, c.finetune, c.version)
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn model_ids_split_as_gguf_py_splits_them() {
    // expectations from gguf-py's Metadata.get_model_id_components (its own unit tests)
    assert_eq!(
        parts("Mixtral-8x7B-Instruct-v0.1", 0),
        (
            some("Mixtral"),
            some("8x7B"),
            some("Instruct"),
            some("v0.1")
        )
    );
    assert_eq!(
        parts("Meta-Llama-3-8B", 0),
        (some("Meta-Llama-3"), some("8B"), None, None)
    );
    assert_eq!(
        parts("bloom-7b1-petals", 0),
        (some("bloom"), some("7.1B"), some("petals"), None)
    );
    assert_eq!(parts("Llama-2-7b-chat-hf", 0).1, some("7B"));
    assert_eq!(parts("hf-vocab", 0), (None, None, None, None));
    let c = get_model_id_components(Some("meta-llama/Llama-2-7b-hf"), 0);
    assert_eq!(c.org, some("meta-llama"));
    assert_eq!(c.full_name, some("Llama-2-7b-hf"));
}

#[test]
fn model_ids_as_the_sdists_gguf_py() {
    // (id, total_params) -> (full name, org, basename, finetune, version, size label), as the
    // sdist's gguf-py 0.19.0 `Metadata.get_model_id_components` returns them
    type Row<'a> = (&'a str, i64, [Option<&'a str>; 6]);
    let rows: &[Row] = &[
        (
            "Mixtral-8x7B-Instruct-v0.1",
            0,
            [
                Some("Mixtral-8x7B-Instruct-v0.1"),
                None,
                Some("Mixtral"),
                Some("Instruct"),
                Some("v0.1"),
                Some("8x7B"),
            ],
        ),
        (
            "Llama-2-7b-chat-hf",
            0,
            [
                Some("Llama-2-7b-chat-hf"),
                None,
                Some("Llama-2"),
                Some("chat-hf"),
                None,
                Some("7B"),
            ],
        ),
        (
            "meta-llama/Llama-2-7b-hf",
            0,
            [
                Some("Llama-2-7b-hf"),
                Some("meta-llama"),
                Some("Llama-2"),
                Some("hf"),
                None,
                Some("7B"),
            ],
        ),
        (
            "Qwen2.5-0.5B-Instruct",
            7_000_000_000,
            [
                Some("Qwen2.5-0.5B-Instruct"),
                None,
                Some("Qwen2.5"),
                Some("0.5b-Instruct"),
                None,
                None,
            ],
        ),
        (
            "gemma-3-270m-it",
            7_000_000_000,
            [
                Some("gemma-3-270m-it"),
                None,
                Some("gemma-3"),
                Some("270m-it"),
                None,
                None,
            ],
        ),
        (
            "Phi-3-mini-4k-instruct",
            0,
            [
                Some("Phi-3-mini-4k-instruct"),
                None,
                Some("Phi-3-mini"),
                Some("instruct"),
                None,
                Some("4K"),
            ],
        ),
        (
            "Phi-3-mini-4k-instruct",
            7_000_000_000,
            [
                Some("Phi-3-mini-4k-instruct"),
                None,
                Some("Phi-3"),
                Some("4k-instruct"),
                None,
                Some("mini"),
            ],
        ),
        (
            "DeepSeek-R1-Distill-Qwen-1.5B",
            0,
            [
                Some("DeepSeek-R1-Distill-Qwen-1.5B"),
                None,
                Some("DeepSeek-R1-Distill-Qwen"),
                None,
                None,
                Some("1.5B"),
            ],
        ),
        (
            "SmolLM2-135M-Instruct-Q4_K_M",
            7_000_000_000,
            [
                Some("SmolLM2-135M-Instruct-Q4_K_M"),
                None,
                Some("SmolLM2"),
                Some("135m-Instruct"),
                None,
                None,
            ],
        ),
        (
            "hf-vocab",
            0,
            [Some("hf-vocab"), None, None, None, None, None],
        ),
    ];
    for (id, total, want) in rows {
        let c = get_model_id_components(Some(id), *total);
        let got = [
            &c.full_name,
            &c.org,
            &c.basename,
            &c.finetune,
            &c.version,
            &c.size_label,
        ]
        .map(|o| o.as_deref());
        assert_eq!(&got, want, "{id} with {total} parameters");
    }
}

#[test]
fn titles_and_size_labels() {
    assert_eq!(id_to_title("llama-bpe"), "Llama Bpe");
    assert_eq!(id_to_title("Llama-2-7b-hf"), "Llama 2 7b Hf");
    assert_eq!(id_to_title("qwen2.5-v1.2"), "Qwen2.5 v1.2");
    let c = ParamCounts {
        total: 7_241_732_096,
        shared: 0,
        expert: 0,
        expert_count: 0,
    };
    assert_eq!(size_label(&c), "7.2B");
    let c = ParamCounts {
        total: 268_098_176,
        shared: 0,
        expert: 0,
        expert_count: 0,
    };
    assert_eq!(size_label(&c), "268M");
}

#[test]
fn front_matter_subset() {
    let m = front_matter(
        "license: apache-2.0\nlanguage:\n- en\n- \"no\"\ntags: [a, b]\nmodel-index:\n  - name: x\n    results: []\nbase_model: meta-llama/Llama-2-7b-hf\n",
    );
    assert_eq!(m["license"], Value::String("apache-2.0".into()));
    assert_eq!(m["language"], serde_json::json!(["en", "no"]));
    assert_eq!(m["tags"], serde_json::json!(["a", "b"]));
    assert!(!m.contains_key("model-index"));
    assert_eq!(
        m["base_model"],
        Value::String("meta-llama/Llama-2-7b-hf".into())
    );
}
