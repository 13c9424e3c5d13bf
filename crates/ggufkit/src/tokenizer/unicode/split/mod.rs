//! llama.cpp's `unicode_regex_split`: a list of expressions applied one after the other, each
//! splitting the pieces the previous one left; the pieces are the matches and the stretches
//! between them. Expressions llama.cpp recognizes by their exact text go to its hand-written
//! splitters (`custom.rs`); the others run as std::regex would run them (`regex.rs`), on the
//! collapsed text when they name Unicode categories (`collapse.rs`), else on the codepoints.
#![forbid(unsafe_code)]

mod class;
mod collapse;
mod custom;
mod regex;

use super::{flags_of_all, CodepointFlags};
use std::ops::Range;

/// The UTF-8 length of a codepoint of a `&str`.
#[inline]
fn utf8_len(c: u32) -> usize {
    1 + usize::from(c >= 0x80) + usize::from(c >= 0x800) + usize::from(c >= 0x1_0000)
}

/// A hand-written splitter: codepoints, their flags, the spans so far → the new spans.
type CustomFn = fn(&[u32], &[CodepointFlags], &[usize], &mut Vec<usize>);

/// The expressions llama.cpp splits with its own code instead of std::regex, by exact text.
const CUSTOM: [(&str, CustomFn); 9] = [
    ("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", custom::gpt2),
    ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", custom::llama3),
    ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", custom::llama3),
    ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", custom::qwen2),
    ("(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+", custom::qwen35),
    ("\\p{Han}+", custom::kimi_k2),
    ("\\p{AFMoE_digits}", custom::afmoe),
    ("[^\\n]+|[\\n]+", custom::newlines),
    ("\\d{1,3}(?=(?:\\d{3})*\\b)", custom::afmoe),
];

/// Expressions of llama.cpp's lists that its std::regex path runs in time quadratic in a run of
/// whitespace or digits, split here by linear code that gives the same pieces (the differential
/// test against llama.cpp covers them like the others).
const EQUIVALENT: [(&str, CustomFn); 2] = [
    ("\\s+$", custom::trailing_whitespace),
    ("(?=(\\d{3})+(?!\\d))", custom::digit_triples),
];

/// Why a list of expressions cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegexSplitError {
    /// The expression is not in the ECMAScript subset llama.cpp's lists use.
    #[error("pre-tokenizer expression {expr:?}: expected {what} at code unit {at}")]
    Syntax {
        /// The expression.
        expr: String,
        /// Index of the code unit (byte of the collapsed form, or codepoint) where it failed.
        at: usize,
        /// What was expected there.
        what: &'static str,
    },
    /// Names Unicode categories and holds non-ASCII characters: llama.cpp refuses that mix.
    #[error("pre-tokenizer expression {expr:?} mixes Unicode categories and non-ASCII characters (llama.cpp refuses it)")]
    CategoriesWithNonAscii {
        /// The expression.
        expr: String,
    },
}

enum Stage {
    Custom(CustomFn),
    /// Runs on the collapsed text (`collapsed`) or on the codepoints.
    Regex {
        regex: regex::Regex,
        collapsed: bool,
    },
}

/// A compiled list of expressions: llama.cpp's `unicode_regex_split` for that list.
/// Immutable once built (`Send + Sync`); [`RegexSplitter::split`] takes `&self`.
pub struct RegexSplitter {
    stages: Vec<Stage>,
    collapsed: bool,
    wide: bool,
}

impl std::fmt::Debug for RegexSplitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegexSplitter")
            .field("stages", &self.stages.len())
            .finish()
    }
}

impl RegexSplitter {
    /// Compiles `exprs` (each as llama.cpp would treat it).
    pub fn new(exprs: &[&str]) -> Result<RegexSplitter, RegexSplitError> {
        let mut stages = Vec::with_capacity(exprs.len());
        for &expr in exprs {
            if let Some(&(_, f)) = CUSTOM
                .iter()
                .chain(&EQUIVALENT)
                .find(|(text, _)| *text == expr)
            {
                stages.push(Stage::Custom(f));
                continue;
            }
            let syntax = |e: regex::ParseError| RegexSplitError::Syntax {
                expr: expr.to_string(),
                at: e.at,
                what: e.what,
            };
            let stage = if collapse::uses_categories(expr) {
                let Some(bytes) = collapse::collapse_expr(expr) else {
                    return Err(RegexSplitError::CategoriesWithNonAscii {
                        expr: expr.to_string(),
                    });
                };
                let units: Vec<u32> = bytes.iter().map(|&b| b as u32).collect();
                let regex = regex::Regex::new(&units, regex::Units::Bytes).map_err(syntax)?;
                Stage::Regex {
                    regex,
                    collapsed: true,
                }
            } else {
                let units: Vec<u32> = expr.chars().map(|c| c as u32).collect();
                let regex = regex::Regex::new(&units, regex::Units::Wide).map_err(syntax)?;
                Stage::Regex {
                    regex,
                    collapsed: false,
                }
            };
            stages.push(stage);
        }
        let collapsed = stages.iter().any(|s| {
            matches!(
                s,
                Stage::Regex {
                    collapsed: true,
                    ..
                }
            )
        });
        let wide = stages.iter().any(|s| {
            matches!(
                s,
                Stage::Regex {
                    collapsed: false,
                    ..
                }
            )
        });
        Ok(RegexSplitter {
            stages,
            collapsed,
            wide,
        })
    }

    /// Appends to `out` the byte ranges of the pieces of `text`, in order, covering it: the
    /// words llama.cpp's `unicode_regex_split` returns, empty ones included (an expression that
    /// matches the empty string yields them, as in llama.cpp). Empty text gives no pieces.
    pub fn split(&self, text: &str, out: &mut Vec<Range<usize>>) {
        self.split_counting(text, out);
    }

    /// [`Self::split`], returning the regex engine's work (instructions and units scanned).
    fn split_counting(&self, text: &str, out: &mut Vec<Range<usize>>) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let cpts: Vec<u32> = text.chars().map(|c| c as u32).collect();
        let mut cpt_flags = Vec::new();
        flags_of_all(&cpts, &mut cpt_flags);
        let collapsed: Vec<u32> = if self.collapsed {
            cpts.iter()
                .zip(&cpt_flags)
                .map(|(&c, &f)| collapse::collapse_cpt(c, f))
                .collect()
        } else {
            Vec::new()
        };
        let wide: Vec<u32> = if self.wide {
            cpts.iter()
                .zip(&cpt_flags)
                .map(|(&c, &f)| collapse::wide_cpt(c, f))
                .collect()
        } else {
            Vec::new()
        };
        let mut spans = vec![cpts.len()];
        let mut next = Vec::with_capacity(cpts.len() / 2 + 1);
        let mut scratch = regex::Scratch::default();
        for stage in &self.stages {
            next.clear();
            match stage {
                Stage::Custom(f) => f(&cpts, &cpt_flags, &spans, &mut next),
                Stage::Regex {
                    regex,
                    collapsed: c,
                } => {
                    let units = if *c { &collapsed } else { &wide };
                    let mut start = 0;
                    for &len in &spans {
                        regex.split_span(units, start, start + len, &mut next, &mut scratch);
                        start += len;
                    }
                }
            }
            std::mem::swap(&mut spans, &mut next);
        }
        out.reserve(spans.len());
        let (mut at, mut byte) = (0, 0);
        for len in spans {
            let bytes: usize = cpts[at..at + len].iter().map(|&c| utf8_len(c)).sum();
            out.push(byte..byte + bytes);
            at += len;
            byte += bytes;
        }
        scratch.steps
    }
}

#[cfg(test)]
mod tests;
