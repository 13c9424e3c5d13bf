//! Differential: the tokenizer against llama.cpp itself (node-llama-cpp 3.21.1's prebuilt
//! libllama, `scripts/tokref/`), on every vocabulary of `../shared/corpus/vocab` and the Gemma 3
//! model: seeded random and adversarial text encoded with both special flags, and id sequences
//! decoded with both. The bar is zero differences; the test prints each vocabulary's counts and
//! its first difference (the text, our ids, llama.cpp's).
//!
//! Each vocabulary's texts go through one `Encoder`, one after the other, as the batch modes
//! encode: words encoded for one text are reused for the next, and must give the same ids.

use ggufkit::tokenizer::Tokenizer;
use ggufkit::Gguf;
use ggufkit_testkit::tokref::{reference, shown, vocabularies};

#[test]
fn tokenizer_agrees_with_llama_cpp() {
    let Some(vocabs) = vocabularies() else {
        return;
    };
    let mut total_cases = 0usize;
    let mut total_diffs = 0usize;
    let mut report = String::new();
    for path in &vocabs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(r) = reference(path) else {
            return;
        };
        let g = Gguf::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tok = match Tokenizer::from_gguf(&g) {
            Ok(t) => t,
            Err(e) => {
                // llama.cpp loads every one of these vocabularies: refusing one is a difference
                let n = r.encode.len() + r.decode.len();
                total_cases += n;
                total_diffs += n;
                report.push_str(&format!("{name}: refused ({e}); all {n} cases differ\n"));
                continue;
            }
        };
        let mut enc_diffs = 0;
        let mut first = None;
        let mut ids = Vec::new();
        let mut encoder = tok.encoder();
        for c in &r.encode {
            let got = encoder
                .encode_into(&c.text, c.add_special, c.parse_special, &mut ids)
                .map(|()| &ids);
            if got != Ok(&c.expect) {
                enc_diffs += 1;
                first.get_or_insert_with(|| {
                    format!(
                        "  first encode difference (add_special={}, parse_special={}): {}\n    ours:      {:?}\n    llama.cpp: {:?}\n",
                        c.add_special, c.parse_special, shown(&c.text), got, c.expect
                    )
                });
            }
        }
        let mut dec_diffs = 0;
        let mut first_dec = None;
        for c in &r.decode {
            let got = tok.decode(&c.ids, c.remove_special, c.unparse_special);
            if got.as_deref().ok() != Some(&c.expect[..]) {
                dec_diffs += 1;
                first_dec.get_or_insert_with(|| {
                    format!(
                        "  first decode difference (remove_special={}, unparse_special={}): {:?}\n    ours:      {:?}\n    llama.cpp: {:?}\n",
                        c.remove_special,
                        c.unparse_special,
                        c.ids,
                        got.map(|b| String::from_utf8_lossy(&b).into_owned()),
                        String::from_utf8_lossy(&c.expect)
                    )
                });
            }
        }
        total_cases += r.encode.len() + r.decode.len();
        total_diffs += enc_diffs + dec_diffs;
        report.push_str(&format!(
            "{name}: encode {enc_diffs}/{} differ, decode {dec_diffs}/{} differ\n",
            r.encode.len(),
            r.decode.len(),
        ));
        report.extend(first);
        report.extend(first_dec);
    }
    println!("{report}");
    println!(
        "{} vocabularies, {total_cases} cases, {total_diffs} differences",
        vocabs.len()
    );
    assert_eq!(
        total_diffs, 0,
        "differences from llama.cpp (the report above)"
    );
}
