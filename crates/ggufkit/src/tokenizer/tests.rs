//! Unit tests on small vocabularies written with [`GgufBuilder`]: loading rules, refusals,
//! the special-token partition, and encode/decode round trips. No expected id here comes from
//! anywhere but the vocabulary the test builds (llama.cpp's own ids are checked by
//! `tests/tokenizer_vectors.rs`).
#![forbid(unsafe_code)]

use super::*;
use crate::value::ValueType;
use crate::write::{GgufBuilder, OwnedArray, OwnedValue};

fn strings(items: &[&str]) -> OwnedValue {
    OwnedValue::Array(
        OwnedArray::new(
            ValueType::String,
            items
                .iter()
                .map(|s| OwnedValue::String(s.to_string()))
                .collect(),
        )
        .unwrap(),
    )
}

fn i32s(items: &[i32]) -> OwnedValue {
    OwnedValue::Array(
        OwnedArray::new(
            ValueType::I32,
            items.iter().map(|&x| OwnedValue::I32(x)).collect(),
        )
        .unwrap(),
    )
}

fn f32s(items: &[f32]) -> OwnedValue {
    OwnedValue::Array(
        OwnedArray::new(
            ValueType::F32,
            items.iter().map(|&x| OwnedValue::F32(x)).collect(),
        )
        .unwrap(),
    )
}

/// A GGUF of the key-value pairs `kvs`.
fn gguf_of(kvs: Vec<(&str, OwnedValue)>) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    for (k, v) in kvs {
        b.set(k, v).unwrap();
    }
    b.write_to(Vec::new()).unwrap()
}

/// A SentencePiece vocabulary: `<unk>`, `<s>`, `</s>`, a control token, the 256 byte tokens, then
/// `pieces` with decreasing scores. Returns the file and the id of the first piece.
fn spm_vocab(pieces: &[&str]) -> (Vec<u8>, u32) {
    let mut texts: Vec<String> = vec![
        "<unk>".into(),
        "<s>".into(),
        "</s>".into(),
        "<|ctl|>".into(),
    ];
    let mut types = vec![2, 3, 3, 3];
    for b in 0..=255u8 {
        texts.push(format!("<0x{b:02X}>"));
        types.push(6);
    }
    let first = texts.len() as u32;
    for p in pieces {
        texts.push(p.to_string());
        types.push(1);
    }
    let scores: Vec<f32> = (0..texts.len()).map(|i| -(i as f32)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "llama".into()),
        ("tokenizer.ggml.tokens", strings(&refs)),
        ("tokenizer.ggml.scores", f32s(&scores)),
        ("tokenizer.ggml.token_type", i32s(&types)),
    ]);
    (file, first)
}

const PIECES: &[&str] = &["▁", "a", "b", "c", "▁a", "ab", "▁ab", "bc", "▁abc", "é"];

/// A tokenizer borrowed for longer can be used where a shorter borrow is expected (bindings
/// that keep the file beside it, as self_cell does, need this).
#[allow(dead_code)]
fn tokenizer_is_covariant<'a, 'b: 'a>(t: Tokenizer<'b>) -> Tokenizer<'a> {
    t
}

#[test]
fn tokenizer_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Tokenizer<'static>>();
}

#[test]
fn spm_loads_with_llama_defaults() {
    let (file, _) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert_eq!(t.model(), "llama");
    assert_eq!(t.model_type(), Model::Spm);
    assert_eq!(t.vocab_size(), 4 + 256 + PIECES.len() as u32);
    assert_eq!(t.bos_id(), Some(1));
    assert_eq!(t.eos_id(), Some(2));
    assert!(t.adds_bos() && !t.adds_eos());
    // "</s>" is an end-of-generation text; the default EOS is one too
    assert_eq!(t.eog_ids(), &[2]);
    assert_eq!(t.token(4), Some("<0x00>"));
    assert_eq!(t.token_id("▁abc"), Some(4 + 256 + 8));
    assert_eq!(t.attr(3), Some(TokenAttr::CONTROL));
}

#[test]
fn spm_merges_by_score_and_falls_back_to_bytes() {
    let (file, first) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    let id = |p: &str| first + PIECES.iter().position(|x| *x == p).unwrap() as u32;
    // "▁abc" is reachable by merges ("▁a"+"b"... ) only through tokens; "▁ab" then "c" merge
    // needs "▁abc": every intermediate is a token of this vocabulary
    assert_eq!(t.encode("abc", false, false).unwrap(), vec![id("▁abc")]);
    // 'z' is no token: its byte token
    assert_eq!(
        t.encode("z", false, false).unwrap(),
        vec![id("▁"), 4 + u32::from(b'z')]
    );
    assert_eq!(t.encode("", true, false).unwrap(), vec![1]);
    assert_eq!(t.encode("", false, false).unwrap(), Vec::<u32>::new());
}

#[test]
fn spm_goes_word_by_word_only_where_no_merge_joins_words() {
    // no token has a "▁" after another character: words merge apart, repeated words from the
    // session's cache, with the ids of the whole text
    let (file, first) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert!(spm::by_words(&t.vocab));
    let id = |p: &str| first + PIECES.iter().position(|x| *x == p).unwrap() as u32;
    let mut e = t.encoder();
    for _ in 0..2 {
        assert_eq!(
            e.encode("abc ab  abc", false, false).unwrap(),
            vec![id("▁abc"), id("▁ab"), id("▁"), id("▁abc")]
        );
    }
    // "c▁" (the best score) joins two words: the text is merged whole, the merge across the
    // space made first
    const JOINED: &[&str] = &["c▁", "▁", "a", "b", "c", "▁a", "ab", "▁ab"];
    let (file, first) = spm_vocab(JOINED);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert!(!spm::by_words(&t.vocab));
    let id = |p: &str| first + JOINED.iter().position(|x| *x == p).unwrap() as u32;
    assert_eq!(
        t.encode("abc ab", false, false).unwrap(),
        vec![id("▁ab"), id("c▁"), id("ab")]
    );
}

#[test]
fn spm_round_trips_any_text() {
    let (file, _) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    for text in [
        "abc abc",
        "  a\tb\nc ",
        "héllo wörld 🦙",
        "ab<|ctl|>c",
        "<s>",
        "é",
    ] {
        // the space SentencePiece adds is removed again
        let ids = t.encode(text, false, false).unwrap();
        let back = t.decode(&ids, false, false).unwrap();
        assert_eq!(String::from_utf8(back).unwrap(), text, "{ids:?}");
        // after a BOS that decoding removes, llama.cpp keeps that space
        let ids = t.encode(text, true, false).unwrap();
        let back = t.decode(&ids, true, false).unwrap();
        assert_eq!(
            String::from_utf8(back).unwrap(),
            format!(" {text}"),
            "{ids:?}"
        );
    }
}

#[test]
fn parse_special_matches_control_tokens_only_when_asked() {
    let (file, _) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    let with = t.encode("a<|ctl|>b", false, true).unwrap();
    assert!(with.contains(&3), "{with:?}");
    let without = t.encode("a<|ctl|>b", false, false).unwrap();
    assert!(!without.contains(&3), "{without:?}");
    // rendered only with unparse_special
    // the first piece loses the space SentencePiece added; the one after the token stays
    assert_eq!(t.decode(&with, false, true).unwrap(), b"a<|ctl|> b");
    assert_eq!(t.decode(&with, false, false).unwrap(), b"a b");
}

#[test]
fn ids_out_of_range_are_named() {
    let (file, _) = spm_vocab(PIECES);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    let n = t.vocab_size();
    assert_eq!(
        t.decode(&[1, n], false, false),
        Err(TokenizerError::IdOutOfRange {
            id: n,
            vocab_size: n
        })
    );
    assert!(t.piece(u32::MAX, true).is_err());
}

fn refusal(kvs: Vec<(&str, OwnedValue)>) -> TokenizerError {
    let file = gguf_of(kvs);
    let g = Gguf::from_bytes(&file).unwrap();
    Tokenizer::from_gguf(&g).unwrap_err()
}

#[test]
fn refusals_name_the_key() {
    assert_eq!(
        refusal(vec![]),
        TokenizerError::MissingKey {
            key: "tokenizer.ggml.model"
        }
    );
    assert!(matches!(
        refusal(vec![("tokenizer.ggml.model", "sentencepiece".into())]),
        TokenizerError::UnknownModel { model } if model == "sentencepiece"
    ));
    assert_eq!(
        refusal(vec![("tokenizer.ggml.model", "llama".into())]),
        TokenizerError::MissingKey {
            key: "tokenizer.ggml.tokens"
        }
    );
    assert!(matches!(
        refusal(vec![("tokenizer.ggml.model", OwnedValue::U32(1))]),
        TokenizerError::WrongType { key, .. } if key == "tokenizer.ggml.model"
    ));
    assert!(matches!(
        refusal(vec![
            ("tokenizer.ggml.model", "llama".into()),
            ("tokenizer.ggml.tokens", strings(&["a", "b"])),
            ("tokenizer.ggml.add_bos_token", OwnedValue::U8(1)),
        ]),
        TokenizerError::WrongType { key, .. } if key == "tokenizer.ggml.add_bos_token"
    ));
    assert_eq!(
        refusal(vec![
            ("tokenizer.ggml.model", "llama".into()),
            ("tokenizer.ggml.tokens", strings(&["a", "b"])),
            ("tokenizer.ggml.scores", f32s(&[0.0])),
        ]),
        TokenizerError::ArrayTooShort {
            key: "tokenizer.ggml.scores",
            len: 1,
            tokens: 2
        }
    );
    assert_eq!(
        refusal(vec![
            ("tokenizer.ggml.model", "llama".into()),
            ("tokenizer.ggml.tokens", strings(&["a", "b", "a"])),
        ]),
        TokenizerError::DuplicateToken {
            id: 2,
            first: 0,
            text: "a".into()
        }
    );
    assert_eq!(
        refusal(vec![
            ("tokenizer.ggml.model", "gpt2".into()),
            ("tokenizer.ggml.tokens", strings(&["a", "b"])),
        ]),
        TokenizerError::MissingKey {
            key: "tokenizer.ggml.merges"
        }
    );
    assert!(matches!(
        refusal(vec![
            ("tokenizer.ggml.model", "gpt2".into()),
            ("tokenizer.ggml.pre", "no-such-pre".into()),
            ("tokenizer.ggml.tokens", strings(&["a", "b"])),
            ("tokenizer.ggml.merges", strings(&["a b"])),
        ]),
        TokenizerError::UnknownPre { pre } if pre == "no-such-pre"
    ));
}

#[test]
fn empty_tokens_take_llama_cpp_names() {
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "llama".into()),
        ("tokenizer.ggml.tokens", strings(&["<unk>", "", "x"])),
    ]);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert_eq!(t.token(1), Some(""));
    assert_eq!(t.token_id("[EMPTY_1]"), Some(1));
}

#[test]
fn none_model_has_no_encoder() {
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "none".into()),
        ("llama.vocab_size", OwnedValue::U32(7)),
    ]);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert_eq!(t.vocab_size(), 7);
    assert_eq!(t.bos_id(), None);
    assert!(matches!(
        t.encode("x", true, false),
        Err(TokenizerError::NoVocab { .. })
    ));
    assert_eq!(t.decode(&[1, 2], false, false).unwrap(), b"");
}

#[test]
fn test_model_hashes_chunks() {
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "test".into()),
        ("tokenizer.ggml.tokens", strings(&["a", "b", "c"])),
    ]);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    let ids = t.encode("hello world", false, false).unwrap();
    assert_eq!(ids.len(), 3);
    assert_eq!(t.piece(2, false).unwrap(), b"2");
}

/// Random small vocabularies of every model, with random types, scores, merges, flags and
/// charsmaps: building refuses or succeeds, encoding gives ids in range that decode, and nothing
/// panics (the fuzz target `tokenizer` explores the same space further).
#[test]
fn random_vocabularies_never_panic() {
    const MODELS: [&str; 11] = [
        "llama",
        "gpt2",
        "bert",
        "t5",
        "rwkv",
        "plamo2",
        "test",
        "none",
        "gemma4",
        "whitespace",
        "hybriddna",
    ];
    const PRES: [&str; 8] = [
        "",
        "llama-bpe",
        "qwen2",
        "gpt-2",
        "gemma4",
        "whitespace",
        "kimi-k2",
        "falcon",
    ];
    const ALPHABET: &[&str] = &[
        "a",
        "b",
        "ab",
        " ",
        "▁",
        "Ġ",
        "<s>",
        "</s>",
        "<|im_end|>",
        "\n",
        "é",
        "🦙",
        "<0x41>",
        "<unk>",
        "\\x41",
        "<dna>",
        "</dna>",
        "<oov>",
        "",
        "unused",
        "[MASK]",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut built = 0;
    for _ in 0..600 {
        let model = MODELS[next() as usize % MODELS.len()];
        let n = 1 + next() as usize % 24;
        let mut texts: Vec<String> = Vec::new();
        for _ in 0..n {
            let k = 1 + next() as usize % 3;
            let t: String = (0..k)
                .map(|_| ALPHABET[next() as usize % ALPHABET.len()])
                .collect();
            // repeated texts would be refused: keep them distinct
            let t = if texts.contains(&t) {
                format!("{t}{}", texts.len())
            } else {
                t
            };
            texts.push(t);
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let types: Vec<i32> = (0..n).map(|_| (next() % 8) as i32).collect();
        let scores: Vec<f32> = (0..n).map(|_| -((next() % 100) as f32)).collect();
        let merges: Vec<String> = refs
            .windows(2)
            .map(|w| format!("{} {}", w[0], w[1]))
            .collect();
        let merge_refs: Vec<&str> = merges.iter().map(String::as_str).collect();
        let flags = next();
        let mut kvs = vec![
            ("tokenizer.ggml.model", OwnedValue::from(model)),
            ("tokenizer.ggml.tokens", strings(&refs)),
            ("tokenizer.ggml.token_type", i32s(&types)),
            ("tokenizer.ggml.scores", f32s(&scores)),
            ("tokenizer.ggml.merges", strings(&merge_refs)),
            (
                "tokenizer.ggml.add_bos_token",
                OwnedValue::Bool(flags & 1 != 0),
            ),
            (
                "tokenizer.ggml.add_eos_token",
                OwnedValue::Bool(flags & 2 != 0),
            ),
            (
                "tokenizer.ggml.add_space_prefix",
                OwnedValue::Bool(flags & 4 != 0),
            ),
            (
                "tokenizer.ggml.remove_extra_whitespaces",
                OwnedValue::Bool(flags & 8 != 0),
            ),
            (
                "tokenizer.ggml.unknown_token_id",
                OwnedValue::U32((flags >> 8) as u32 % 32),
            ),
            ("llama.vocab_size", OwnedValue::U32(n as u32)),
        ];
        if flags & 16 != 0 {
            kvs.push((
                "tokenizer.ggml.pre",
                PRES[(flags >> 16) as usize % PRES.len()].into(),
            ));
        }
        if flags & 32 != 0 {
            let mut map = 8u32.to_le_bytes().to_vec();
            map.extend((0..16).map(|_| next() as u8));
            map.push(0);
            let items = map.into_iter().map(OwnedValue::U8).collect();
            kvs.push((
                "tokenizer.ggml.precompiled_charsmap",
                OwnedValue::Array(OwnedArray::new(ValueType::U8, items).unwrap()),
            ));
        }
        let file = gguf_of(kvs);
        let g = Gguf::from_bytes(&file).unwrap();
        let Ok(t) = Tokenizer::from_gguf(&g) else {
            continue;
        };
        built += 1;
        let text: String = (0..next() % 12)
            .map(|_| ALPHABET[next() as usize % ALPHABET.len()])
            .collect();
        for (add, parse) in [(false, false), (true, true)] {
            if let Ok(ids) = t.encode(&text, add, parse) {
                assert!(ids.iter().all(|&id| id < t.vocab_size()), "{model} {ids:?}");
                t.decode(&ids, add, parse).unwrap();
            }
        }
    }
    assert!(built > 200, "only {built} of 600 vocabularies built");
}

/// A PLaMo-2 vocabulary: its four specials, the 256 byte tokens (unless `skip_byte`), then
/// `pieces`.
fn plamo2_vocab(pieces: &[&str], skip_byte: Option<u8>) -> Vec<u8> {
    let mut texts: Vec<String> = [
        "<|plamo:unk|>",
        "<|plamo:bos|>",
        "<|plamo:eos|>",
        "<|plamo:pad|>",
    ]
    .map(String::from)
    .to_vec();
    let mut types = vec![2, 3, 3, 3];
    for b in (0..=255u8).filter(|b| Some(*b) != skip_byte) {
        texts.push(format!("<0x{b:02X}>"));
        types.push(6);
    }
    for p in pieces {
        texts.push(p.to_string());
        types.push(1);
    }
    let scores: Vec<f32> = (0..texts.len())
        .map(|i| -((i % 13) as f32) * 0.37)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    gguf_of(vec![
        ("tokenizer.ggml.model", "plamo2".into()),
        ("tokenizer.ggml.tokens", strings(&refs)),
        ("tokenizer.ggml.scores", f32s(&scores)),
        ("tokenizer.ggml.token_type", i32s(&types)),
    ])
}

#[test]
fn plamo2_round_trips_and_needs_every_byte_token() {
    let pieces = [
        "a",
        "b",
        "ab",
        "abc",
        " ",
        " a",
        "hel",
        "lo",
        "こん",
        "にちは",
    ];
    let file = plamo2_vocab(&pieces, None);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    assert_eq!((t.bos_id(), t.eos_id()), (Some(1), Some(2)));
    for text in ["abc", "hello abc", "こんにちは 🦙", "zz\n\t", "\u{FEFF}ab"] {
        let ids = t.encode(text, false, false).unwrap();
        let back = t.decode(&ids, false, false).unwrap();
        // a leading byte-order mark is dropped, as llama.cpp drops it
        assert_eq!(
            String::from_utf8(back).unwrap(),
            text.trim_start_matches('\u{FEFF}')
        );
    }
    let file = plamo2_vocab(&pieces, Some(0x41));
    let g = Gguf::from_bytes(&file).unwrap();
    assert_eq!(
        Tokenizer::from_gguf(&g).unwrap_err(),
        TokenizerError::MissingByteToken { byte: 0x41 }
    );
}

#[test]
fn rwkv_unescapes_and_refuses_where_llama_cpp_loops() {
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "rwkv".into()),
        (
            "tokenizer.ggml.tokens",
            strings(&[
                "<s>",
                "a",
                "b",
                "ab",
                " ",
                "\\n",
                "\\x41",
                "\\\\",
                "\\xe3\\x81",
            ]),
        ),
        ("tokenizer.ggml.unknown_token_id", OwnedValue::U32(0)),
    ]);
    let g = Gguf::from_bytes(&file).unwrap();
    let t = Tokenizer::from_gguf(&g).unwrap();
    for text in ["ab a\nA\\", "ba b"] {
        let ids = t.encode(text, true, false).unwrap();
        assert_eq!(t.decode(&ids, true, false).unwrap(), text.as_bytes());
    }
    // a byte no token starts with is the unknown token
    assert_eq!(t.encode("z", false, false).unwrap(), vec![0]);
    // "\xe3\x81" starts "ん" but is no prefix of it: llama.cpp goes back to the start forever
    // (it ends in bad_alloc); here it is an error naming the offset
    assert_eq!(
        t.encode("aん", false, false),
        Err(TokenizerError::NoProgress { offset: 1 })
    );
}

/// gemma4 pre-tokenizes by lines; its BPE then goes word by word, cut before each `▁` that no
/// merge joins to the character before it: a merge of `>` to `▁</` keeps `a>▁</b` whole.
#[test]
fn gemma4_words_are_cut_only_where_no_merge_joins_them() {
    let tokens = [
        "<pad>", "<eos>", "<bos>", "a", "b", ">", "<", "/", "▁", "▁<", "▁</", ">▁</", "▁a",
    ];
    let file = gguf_of(vec![
        ("tokenizer.ggml.model", "gemma4".into()),
        ("tokenizer.ggml.tokens", strings(&tokens)),
        (
            "tokenizer.ggml.merges",
            strings(&["▁ <", "▁< /", "> ▁</", "▁ a"]),
        ),
    ]);
    let g = Gguf::from_bytes(&file).unwrap();
    let tok = Tokenizer::from_gguf(&g).unwrap();
    let id = |t: &str| tokens.iter().position(|x| *x == t).unwrap() as u32;
    let expect = ["a", ">▁</", "b", "▁a", "▁", "b"].map(id).to_vec();
    assert_eq!(tok.encode("a> </b a b", false, false).unwrap(), expect);
    // the same words again, from the session's cache
    let mut e = tok.encoder();
    for _ in 0..2 {
        assert_eq!(e.encode("a> </b a b", false, false).unwrap(), expect);
    }
}

/// The joiners of `merges` a merge at a time: where llama.cpp splits each merge (the first
/// space after its first byte), a right part starting with `▁` after a left part ending in
/// another character names that character; more than 16 distinct, and there is no list.
fn joiners_one_by_one(merges: &[&str]) -> Option<Vec<Vec<u8>>> {
    let mut found: Vec<Vec<u8>> = Vec::new();
    for m in merges {
        let Some(sep) = m
            .char_indices()
            .skip(1)
            .find(|&(_, c)| c == ' ')
            .map(|(i, _)| i)
        else {
            continue;
        };
        let (left, right) = (&m[..sep], &m[sep + 1..]);
        if right.starts_with('▁') && !left.ends_with('▁') {
            let c = left.chars().last().unwrap().to_string().into_bytes();
            if !found.contains(&c) {
                found.push(c);
                if found.len() > 16 {
                    return None;
                }
            }
        }
    }
    Some(found)
}

/// The joiners are found by searching the merges array for a space then `▁`: the same as
/// looking at each merge, including spaces found past a merge's split, at its first byte, and
/// more distinct characters than are kept.
#[test]
fn joiners_found_in_the_whole_array_are_each_merges() {
    let tokens = ["<pad>", "<eos>", "<bos>", "a", "▁"];
    let mut cases: Vec<Vec<String>> = vec![
        vec![
            "a ▁b", "é ▁x", "q b ▁c", "▁ ▁x", " ▁a", "w  ▁", "v▁ ▁", "é ▁y", "x ▁",
        ],
        vec!["ab", "a b", "▁ a"],
        vec![],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(String::from).collect())
    .collect();
    // 16 distinct joiners, then 17
    let many: Vec<String> = (0..17)
        .map(|i| format!("{} ▁z", char::from(b'A' + i)))
        .collect();
    cases.push(many[..16].to_vec());
    cases.push(many.clone());
    cases.push([&many[..16], &many[..16]].concat());
    for merges in cases {
        let refs: Vec<&str> = merges.iter().map(String::as_str).collect();
        let file = gguf_of(vec![
            ("tokenizer.ggml.model", "gemma4".into()),
            ("tokenizer.ggml.tokens", strings(&tokens)),
            ("tokenizer.ggml.merges", strings(&refs)),
        ]);
        let g = Gguf::from_bytes(&file).unwrap();
        for tok in [Tokenizer::from_gguf(&g), Tokenizer::from_gguf_eager(&g)] {
            let tok = tok.unwrap();
            let found = tok
                .merges()
                .joiners()
                .map(|j| j.iter().map(|c| c.to_vec()).collect::<Vec<_>>());
            assert_eq!(found, joiners_one_by_one(&refs), "{refs:?}");
        }
    }
}
