//! One pass of minijinja's lexer over a template before it is parsed: Hugging Face's
//! `{% generation %}` / `{% endgeneration %}` tags (which minijinja rejects) blanked out byte for
//! byte, so that real templates parse and every offset stays the template's own; and the bound
//! that keeps the syntax tree shallow.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use minijinja::machinery::{tokenize, Token};
use minijinja::syntax::SyntaxConfig;

/// Most tokens one tag (`{{ }}` or `{% %}`) may hold. minijinja's parser limits the nesting of
/// statements and parentheses, but builds chains (`a ~ b ~ c`, `x|f|g`, `x.a.b`, `not not x`)
/// one tree level per operator, without that limit: this bound keeps the parse, the walk over
/// the tree and the tree's drop far from the end of the stack (a chain this long under 140 nested
/// `if`s runs in a 2 MiB stack unoptimized, as the audit test checks). The real templates of
/// llama.cpp hold at most 60 tokens a tag.
pub(super) const MAX_TAG_TOKENS: usize = 512;

/// Why a template is not handed to the parser: the message and the byte offset it concerns.
pub(super) type Refusal = (String, usize);

/// The source to parse: `src` itself, or a copy with the generation tags blanked out (same
/// length, same line breaks).
pub(super) fn prepare(src: &str) -> Result<Cow<'_, str>, Refusal> {
    let mut blank: Vec<(usize, usize)> = Vec::new();
    // The current tag: its start offset, its tokens so far, and whether it is a statement whose
    // first token is a generation marker (so far).
    let mut tag: Option<(usize, usize, bool)> = None;
    let mut last_end = 0;
    for tok in tokenize(src, false, SyntaxConfig::default()) {
        let (tok, span) = match tok {
            Ok(t) => t,
            Err(e) => {
                let at = e.range().map_or(last_end, |r| r.start);
                return Err((parse_message(&e), at));
            }
        };
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        last_end = end;
        match (tok, &mut tag) {
            (Token::BlockStart, _) => tag = Some((start, 0, true)),
            (Token::VariableStart, _) => tag = Some((start, 0, false)),
            (Token::VariableEnd | Token::BlockEnd, Some((from, n, generation))) => {
                if *generation && *n == 1 {
                    blank.push((*from, end));
                }
                tag = None;
            }
            (t, Some((_, n, generation))) => {
                *n += 1;
                if *n == 1 {
                    *generation &= matches!(t, Token::Ident("generation" | "endgeneration"));
                }
                if *n > MAX_TAG_TOKENS {
                    return Err((
                        format!(
                            "a tag of more than {MAX_TAG_TOKENS} tokens (too deep to be analysed)"
                        ),
                        start,
                    ));
                }
            }
            _ => {}
        }
    }
    if blank.is_empty() {
        return Ok(Cow::Borrowed(src));
    }
    let mut bytes = src.as_bytes().to_vec();
    for (from, to) in blank {
        for b in bytes.get_mut(from..to).into_iter().flatten() {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // Whole tags were blanked, each of ASCII delimiters around whole characters: still UTF-8.
    String::from_utf8(bytes).map(Cow::Owned).map_err(|e| {
        (
            "blanking the generation tags".into(),
            e.utf8_error().valid_up_to(),
        )
    })
}

/// minijinja's own description of a syntax error, without the template name it adds.
pub(super) fn parse_message(e: &minijinja::Error) -> String {
    e.detail()
        .map_or_else(|| e.kind().to_string(), str::to_string)
}
