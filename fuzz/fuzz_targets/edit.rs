//! A metadata edit on whatever parses: set a key (new or existing) to a value made from the input,
//! or remove one; the result is written, reads back valid, holds the edit and keeps every other
//! pair and every tensor.
#![no_main]

use ggufkit::write::{edit, GgufBuilder, MetaEdit, OwnedValue};
use ggufkit::Gguf;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // the last 9 bytes choose the edit; the rest is the file
    if data.len() < 9 {
        return;
    }
    let (file, ctl) = data.split_at(data.len() - 9);
    let Ok(g) = Gguf::from_bytes(file) else {
        return;
    };
    let n = g.kv_count();
    let word = u64::from_le_bytes(ctl[1..9].try_into().unwrap());
    let existing = (n > 0).then(|| g.kv_at(word as usize % n).unwrap().key().into_owned());
    let edit = match (ctl[0] % 4, existing) {
        (0, Some(k)) if k != "general.alignment" => MetaEdit::Remove(k),
        (1, Some(k)) if k != "general.alignment" => MetaEdit::Set(k, OwnedValue::U64(word)),
        (2, _) => MetaEdit::Set("fuzz.text".into(), OwnedValue::String(format!("{word:x}"))),
        _ => MetaEdit::Set("fuzz.number".into(), OwnedValue::F64(f64::from_bits(word))),
    };
    let mut b = GgufBuilder::from_gguf(&g).expect("a valid file has only known types");
    edit::apply(&mut b, std::slice::from_ref(&edit)).expect("the edit applies");
    let out = b.to_vec().expect("an edited valid file can be written");
    let h = Gguf::from_bytes(&out).expect("the edited file reads back valid");
    match &edit {
        MetaEdit::Remove(k) => {
            assert!(h.get(k).is_none());
            assert_eq!(h.kv_count(), n - 1);
        }
        MetaEdit::Set(k, v) => {
            let got = h.get(k).expect("the key is set");
            let got = OwnedValue::from_value(&got).expect("owned");
            assert!(got == *v, "{k}: wrote {v:?}, read {got:?}");
        }
    }
    for kv in g.metadata() {
        let key = kv.key();
        let edited = match &edit {
            MetaEdit::Remove(k) | MetaEdit::Set(k, _) => *k == key,
        };
        if !edited && kv.key.as_str().is_some() {
            let after = h.get_kv(&key).expect("other keys are kept");
            assert_eq!(after.raw, kv.raw, "{key} is kept bit for bit");
        }
    }
    assert_eq!(h.tensor_count(), g.tensor_count());
    for (a, b) in g.tensors().zip(h.tensors()) {
        assert_eq!(a.name_bytes(), b.name_bytes());
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.data(), b.data());
    }
});
