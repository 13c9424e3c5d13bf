//! `ggufkit::select`: tensors of the committed sample chosen by wildcard and ordered.

use ggufkit::select::{matches_glob, select_tensors, TensorOrder};
use ggufkit::Gguf;

fn names(g: &Gguf<'_>, pattern: Option<&str>, order: TensorOrder) -> Vec<String> {
    select_tensors(g, pattern, order)
        .iter()
        .map(|t| t.name().into_owned())
        .collect()
}

fn sample() -> Gguf<'static> {
    Gguf::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../samples/tiny-llama.gguf"
    ))
    .unwrap()
}

#[test]
fn a_pattern_keeps_the_matching_tensors_in_file_order() {
    let g = sample();
    assert_eq!(
        names(&g, Some("blk.*.attn_[qk].weight"), TensorOrder::Offset),
        [
            "blk.0.attn_q.weight",
            "blk.0.attn_k.weight",
            "blk.1.attn_q.weight",
            "blk.1.attn_k.weight"
        ]
    );
    assert_eq!(
        names(&g, Some("*norm*"), TensorOrder::Name),
        [
            "blk.0.attn_norm.weight",
            "blk.0.ffn_norm.weight",
            "blk.1.attn_norm.weight",
            "blk.1.ffn_norm.weight",
            "output_norm.weight"
        ]
    );
    assert!(names(&g, Some("nothing"), TensorOrder::Offset).is_empty());
    assert_eq!(names(&g, None, TensorOrder::Offset).len(), 20);
}

#[test]
fn orders_by_size_and_type_keep_file_order_among_equals() {
    let g = sample();
    let by_size = names(&g, None, TensorOrder::Size);
    assert_eq!(
        by_size[..4],
        [
            "token_embd.weight",
            "blk.0.ffn_gate.weight",
            "blk.0.ffn_down.weight",
            "blk.0.ffn_up.weight"
        ]
    );
    assert_eq!(by_size[19], "output_norm.weight");
    let by_type = names(&g, None, TensorOrder::Type);
    assert_eq!(
        by_type[..5],
        [
            "blk.0.attn_norm.weight",
            "blk.0.ffn_norm.weight",
            "blk.1.attn_norm.weight",
            "blk.1.ffn_norm.weight",
            "output_norm.weight"
        ]
    );
    assert_eq!(by_type[5], "token_embd.weight");
    let sizes: Vec<u64> = select_tensors(&g, None, TensorOrder::Size)
        .iter()
        .map(|t| t.size())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
}

#[test]
fn wildcards_match_whole_names() {
    assert!(matches_glob("blk.?.ffn_*", "blk.3.ffn_up.weight"));
    assert!(!matches_glob("blk.?.ffn_*", "blk.10.ffn_up.weight"));
    assert!(!matches_glob("attn", "blk.0.attn_q.weight"));
    assert!(matches_glob("blk.[!1-9].*", "blk.0.x"));
}
