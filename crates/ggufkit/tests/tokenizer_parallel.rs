//! A long text is encoded on every thread of rayon's pool (its words split into runs, one per
//! thread): the ids must be those of encoding it on one thread, for every vocabulary of
//! `../shared/corpus/vocab` whose model goes parallel (BPE, SentencePiece) and the Gemma 3 model
//! when present, on pools of 1, 2 and 3 threads (runs cut at different words), with both
//! special flags on the mixed texts, over
//! seeded adversarial texts: every script, whitespace and newline runs, CRLF, digits,
//! contractions, emoji sequences, combining marks, `▁`, special tokens' texts mid-string, and a
//! few giant words.

use std::path::PathBuf;

use ggufkit::tokenizer::{Model, Tokenizer};
use ggufkit::Gguf;
use ggufkit_testkit::tokref::vocabularies;

/// Just over the size from which a fragment goes parallel (64 KiB).
const TEXT_BYTES: usize = 80 << 10;

const PIECES: &[&str] = &[
    "Hello",
    " world",
    "'s",
    "'LL",
    "'ve",
    " don't",
    "  ",
    "   ",
    "\t",
    " \t ",
    "\n",
    "\n\n",
    "\n\n\n",
    "\r\n",
    " \n",
    "\n ",
    "0",
    "12",
    "123",
    "1234567",
    " 42",
    "3.14",
    "...",
    "!!",
    "?",
    " (",
    ")",
    "{",
    "};",
    "=>",
    "::",
    "fn main() {",
    "    let x = 1;",
    "/* c */",
    "日本語のテキスト",
    "中文",
    "한국어 문장",
    "Ελληνικά",
    "Кириллица",
    "עברית",
    "العربية",
    "हिन्दी",
    "ภาษาไทย",
    "🦙",
    "👩‍👩‍👧",
    "🏳️‍🌈",
    "e\u{301}",
    "\u{200b}",
    "\u{a0}",
    "▁",
    "▁▁x",
    "<s>",
    "</s>",
    "<|endoftext|>",
    "<|im_start|>",
    "<start_of_turn>",
    "<eos>",
    "<unk>",
    "[CLS]",
    "<mask>",
    " <pad> ",
    "ﬁ",
    "Ⅻ",
    "²",
    "\u{3000}",
    "\u{2028}",
    "ÀÉÎÕÜ",
    "ß",
];

/// xorshift64*: the same texts on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Seeded texts of at least [`TEXT_BYTES`].
fn texts() -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    for _ in 0..2 {
        let mut t = String::new();
        while t.len() < TEXT_BYTES {
            t.push_str(PIECES[rng.below(PIECES.len())]);
        }
        out.push(t);
    }
    // runs of one kind: giant words, whitespace without end, newline runs between words
    let mut t = "a".repeat(TEXT_BYTES / 2);
    t.push(' ');
    t.push_str(&"b".repeat(TEXT_BYTES / 2));
    out.push(t);
    out.push(" ".repeat(TEXT_BYTES));
    out.push("word \n\n".repeat(TEXT_BYTES / 7 + 1));
    out.push("日本\n".repeat(TEXT_BYTES / 7 + 1));
    out
}

/// Runs `f` with each corpus vocabulary's name and tokenizer, for the BPE and SentencePiece ones
/// (which vocabularies load is tokenizer_llama.rs's business: the others are passed over).
fn each_bpe_or_spm(vocabs: &[PathBuf], mut f: impl FnMut(&str, &Tokenizer)) {
    for path in vocabs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let g = Gguf::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let Ok(tok) = Tokenizer::from_gguf(&g) else {
            continue;
        };
        if matches!(tok.model_type(), Model::Bpe | Model::Spm) {
            f(&name, &tok);
        }
    }
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

#[test]
fn long_texts_encode_on_many_threads_as_on_one() {
    let Some(vocabs) = vocabularies() else {
        return;
    };
    let texts = texts();
    let one = pool(1);
    let many: Vec<(usize, rayon::ThreadPool)> = [2, 3].map(|n| (n, pool(n))).into();
    let mut compared = 0;
    each_bpe_or_spm(&vocabs, |name, tok| {
        for (i, text) in texts.iter().enumerate() {
            // the special flag changes the fragments: both on the mixed texts
            let flags: &[bool] = if i < 2 { &[false, true] } else { &[false] };
            for &parse_special in flags {
                let expect = one.install(|| tok.encode(text, false, parse_special));
                for (n, p) in &many {
                    // a session used twice: its helpers' caches must give the same ids again
                    let got = p.install(|| {
                        let mut e = tok.encoder();
                        let first = e.encode(text, false, parse_special);
                        if *n == 2 {
                            let again = e.encode(text, false, parse_special);
                            assert_eq!(first, again, "{name}: text {i}, second encode");
                        }
                        first
                    });
                    assert_eq!(
                        got,
                        expect,
                        "{name}: text {i} ({} bytes), parse_special={parse_special}: {n} threads \
                         differ from one",
                        text.len()
                    );
                    compared += 1;
                }
            }
        }
    });
    println!(
        "{compared} long encodes on 2 and 3 threads identical to one thread's ({} vocabularies)",
        vocabs.len()
    );
}

/// Long texts encoded concurrently on rayon's pool by a tokenizer that has built nothing yet
/// (no `prepare`): each first encode starts the merge table's build, the others wait for it,
/// and a thread building it must never take up one of the waiting encodes (which would wait
/// for itself). A watchdog turns a hang into a failure.
#[test]
fn concurrent_first_encodes_never_wait_for_themselves() {
    let Some(vocabs) = vocabularies() else {
        return;
    };
    let texts: Vec<String> = texts().into_iter().take(6).collect();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch = done.clone();
    std::thread::spawn(move || {
        for _ in 0..600 {
            std::thread::sleep(std::time::Duration::from_millis(500));
            if watch.load(std::sync::atomic::Ordering::SeqCst) {
                return;
            }
        }
        eprintln!(
            "concurrent first encodes hung for 300 s: a thread waits for the table it builds"
        );
        std::process::abort();
    });
    for path in vocabs.iter().filter(|p| {
        let name = p.to_string_lossy();
        name.contains("llama-bpe") || name.contains("gemma-4") || name.contains("qwen2")
    }) {
        let g = Gguf::open(path).unwrap();
        let expect: Vec<Vec<u32>> = {
            let tok = Tokenizer::from_gguf(&g).unwrap();
            texts
                .iter()
                .map(|t| tok.encode(t, false, false).unwrap())
                .collect()
        };
        for threads in [2, 3] {
            let p = pool(threads);
            for _ in 0..10 {
                let tok = Tokenizer::from_gguf(&g).unwrap();
                let got: Vec<Vec<u32>> = p.install(|| {
                    use rayon::prelude::*;
                    texts
                        .par_iter()
                        .map(|t| tok.encode(t, false, false).unwrap())
                        .collect()
                });
                assert_eq!(got, expect, "{}", path.display());
            }
        }
    }
    done.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// `from_gguf_eager` (the merges hashed while the tokens load), `from_gguf_prepared` (every
/// table built up front) and `from_gguf_for` (either, by a text's length) give the tokenizer
/// `from_gguf` gives: the same ids for long and short
/// texts, first encodes included, and the same refusal, on every corpus vocabulary.
#[test]
fn eager_and_prepared_tokenizers_are_the_lazy_one() {
    let Some(vocabs) = vocabularies() else {
        return;
    };
    let texts = texts();
    let short = [
        "",
        "Hi",
        " Hello world\n\n  it's 3.14!",
        "\u{2581}x <s></s> 😀",
    ];
    let two = pool(2);
    let mut compared = 0;
    for path in &vocabs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let g = Gguf::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lazy = Tokenizer::from_gguf(&g);
        two.install(|| {
            let built = [
                ("eager", Tokenizer::from_gguf_eager(&g)),
                ("prepared", Tokenizer::from_gguf_prepared(&g)),
                ("for a long text", Tokenizer::from_gguf_for(&g, 1 << 20)),
                ("for a short text", Tokenizer::from_gguf_for(&g, 10)),
            ];
            for (how, tok) in &built {
                let (lazy, tok) = match (&lazy, tok) {
                    (Ok(l), Ok(t)) => (l, t),
                    (Err(l), Err(t)) => {
                        assert_eq!(l.to_string(), t.to_string(), "{name}: {how}'s refusal");
                        continue;
                    }
                    (l, t) => panic!("{name}: from_gguf {:?}, {how} {:?}", l.is_ok(), t.is_ok()),
                };
                // the first encode of the eager tokenizer is the long text's (the table's
                // second half built while the text is cut into words)
                for text in texts.iter().take(2).map(String::as_str).chain(short) {
                    for parse_special in [false, true] {
                        let want = lazy
                            .encode(text, true, parse_special)
                            .map_err(|e| e.to_string());
                        let got = tok
                            .encode(text, true, parse_special)
                            .map_err(|e| e.to_string());
                        assert_eq!(got, want, "{name}: {how}, {} bytes", text.len());
                        compared += 1;
                    }
                }
            }
        });
    }
    println!("{compared} encodes of eager and prepared tokenizers identical to the lazy one's");
}

/// `encode_batch` (runs of texts through kept sessions, one per thread) gives each text the ids
/// of encoding it alone, in order, on pools of 1, 2 and 3 threads: the texts' lines, each many
/// times (so that sessions meet words again), on every BPE and SentencePiece vocabulary.
#[test]
fn batches_encode_each_text_as_alone() {
    let Some(vocabs) = vocabularies() else {
        return;
    };
    let lines: Vec<&str> = texts()
        .iter()
        .take(3)
        .flat_map(|t| {
            t.split_inclusive('\n')
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect::<Vec<String>>()
        .leak()
        .iter()
        .map(String::as_str)
        .collect();
    let batch: Vec<&str> = (0..3).flat_map(|_| lines.iter().copied()).collect();
    let pools: Vec<(usize, rayon::ThreadPool)> = [1, 2, 3].map(|n| (n, pool(n))).into();
    let mut compared = 0;
    each_bpe_or_spm(&vocabs, |name, tok| {
        let want: Vec<Vec<u32>> = batch
            .iter()
            .map(|t| tok.encode(t, true, false).unwrap())
            .collect();
        for (n, p) in &pools {
            let got = p.install(|| tok.encode_batch(&batch, true, false).unwrap());
            assert_eq!(got.len(), want.len(), "{name}: {n} threads");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{name}: {n} threads, text {i} {:?}", batch[i]);
            }
            compared += got.len();
        }
    });
    println!("{compared} texts of batches identical to their encodes alone");
}
