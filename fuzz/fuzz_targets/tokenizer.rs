//! Tokenizer construction and encoding on hostile vocabularies: either the input is a GGUF
//! (a real vocabulary from the seeds, mutated), or it describes one (model, pre-tokenizer,
//! flags, tokens with types and scores, merges, a charsmap) that is written with GgufBuilder.
//! Building may refuse (a typed error), the eager build exactly as the lazy one; nothing may
//! panic or hang, the eager tokenizer encodes as the lazy one, every id encoding gives is
//! in range, and those ids decode.
#![no_main]

use ggufkit::tokenizer::TokenizerError;
use ggufkit::value::ValueType;
use ggufkit::write::{GgufBuilder, OwnedArray, OwnedValue};
use ggufkit::{Gguf, Tokenizer};
use libfuzzer_sys::fuzz_target;

const MODELS: [&str; 11] = [
    "llama", "gpt2", "bert", "t5", "rwkv", "plamo2", "test", "none", "gemma4", "whitespace",
    "hybriddna",
];
const PRES: [&str; 12] = [
    "", "default", "llama-bpe", "qwen2", "gpt-2", "gemma4", "whitespace", "kimi-k2",
    "deepseek-llm", "falcon", "qwen35", "tekken",
];

fn array(elem: ValueType, items: Vec<OwnedValue>) -> OwnedValue {
    OwnedValue::Array(OwnedArray::new(elem, items).expect("one element type"))
}

/// A vocabulary GGUF described by `data`, and the text to encode.
fn describe(data: &[u8]) -> Option<(Vec<u8>, String, u8)> {
    let (&[model, pre, flags], rest) = data.split_first_chunk::<3>()?;
    let mut chunks = rest.split(|&b| b == 0xFF);
    let text = String::from_utf8_lossy(chunks.next()?).into_owned();
    let mut tokens = Vec::new();
    let mut types = Vec::new();
    let mut scores = Vec::new();
    for c in chunks.by_ref().take(512) {
        let (t, body) = c.split_first().unwrap_or((&1, &[]));
        tokens.push(OwnedValue::String(String::from_utf8_lossy(body).into_owned()));
        types.push(OwnedValue::I32(i32::from(*t % 8)));
        scores.push(OwnedValue::F32(-f32::from(*t)));
    }
    let merges: Vec<OwnedValue> = tokens
        .windows(2)
        .filter_map(|w| match (&w[0], &w[1]) {
            (OwnedValue::String(a), OwnedValue::String(b)) => {
                Some(OwnedValue::String(format!("{a} {b}")))
            }
            _ => None,
        })
        .collect();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").ok()?;
    b.set("tokenizer.ggml.model", MODELS[model as usize % MODELS.len()]).ok()?;
    if pre & 0x80 == 0 {
        b.set("tokenizer.ggml.pre", PRES[pre as usize % PRES.len()]).ok()?;
    }
    b.set("llama.vocab_size", OwnedValue::U32(u32::from(pre))).ok()?;
    b.set("tokenizer.ggml.tokens", array(ValueType::String, tokens)).ok()?;
    if flags & 1 != 0 {
        b.set("tokenizer.ggml.token_type", array(ValueType::I32, types)).ok()?;
    }
    if flags & 2 != 0 {
        b.set("tokenizer.ggml.scores", array(ValueType::F32, scores)).ok()?;
    }
    if flags & 4 != 0 {
        b.set("tokenizer.ggml.merges", array(ValueType::String, merges)).ok()?;
    }
    b.set("tokenizer.ggml.add_bos_token", OwnedValue::Bool(flags & 8 != 0)).ok()?;
    b.set("tokenizer.ggml.add_space_prefix", OwnedValue::Bool(flags & 16 != 0)).ok()?;
    b.set("tokenizer.ggml.remove_extra_whitespaces", OwnedValue::Bool(flags & 32 != 0)).ok()?;
    if flags & 64 != 0 {
        // a charsmap from the text's bytes: a trie of what follows the size field
        let mut map = (text.len() as u32 / 2).to_le_bytes().to_vec();
        map.extend_from_slice(text.as_bytes());
        map.push(0);
        let items = map.into_iter().map(OwnedValue::U8).collect();
        b.set("tokenizer.ggml.precompiled_charsmap", array(ValueType::U8, items)).ok()?;
    }
    b.set("tokenizer.ggml.bos_token_id", OwnedValue::U32(u32::from(model) >> 4)).ok()?;
    let file = b.to_vec().ok()?;
    Some((file, text, flags))
}

fn exercise(file: &[u8], text: &str, flags: u8) {
    let Ok(g) = Gguf::from_bytes(file) else {
        return;
    };
    // the eager build (merges hashed while the tokens load) is the lazy one, refusals included
    let lazy = Tokenizer::from_gguf(&g);
    let eager = Tokenizer::from_gguf_eager(&g);
    assert_eq!(
        lazy.as_ref().err().map(ToString::to_string),
        eager.as_ref().err().map(ToString::to_string),
        "the eager and the lazy builds disagree"
    );
    let (Ok(t), Ok(eager)) = (lazy, eager) else {
        return;
    };
    let n = t.vocab_size();
    for (add_special, parse_special) in [(flags & 128 != 0, false), (true, true)] {
        let encoded = t.encode(text, add_special, parse_special);
        assert_eq!(
            eager
                .encode(text, add_special, parse_special)
                .map_err(|e| e.to_string()),
            encoded.as_ref().map(Vec::clone).map_err(ToString::to_string),
            "the eager tokenizer encodes otherwise"
        );
        match encoded {
            Ok(ids) => {
                assert!(ids.iter().all(|&id| id < n), "an id out of range: {ids:?}");
                for (remove, unparse) in [(false, false), (true, true)] {
                    t.decode(&ids, remove, unparse).expect("encoded ids decode");
                }
            }
            Err(
                TokenizerError::NoVocab { .. }
                | TokenizerError::MissingSpecial { .. }
                | TokenizerError::NoByteToken { .. }
                | TokenizerError::NoProgress { .. }
                | TokenizerError::Charsmap { .. }
                | TokenizerError::PreTokenizer { .. },
            ) => {}
            Err(e) => panic!("unexpected encoding error: {e}"),
        }
    }
    for id in 0..n.min(64) {
        let _ = t.piece(id, true);
    }
    assert!(t.decode(&[n], false, false).is_err() || n == 0 || t.model() == "none");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        // a GGUF followed by nothing else: its vocabulary, a fixed text
        exercise(rest, "Hello world! <s> <|im_end|> \n\t 123 éè 🦙", 0);
    } else if let Some((file, text, flags)) = describe(rest) {
        exercise(&file, &text, flags);
    }
});
