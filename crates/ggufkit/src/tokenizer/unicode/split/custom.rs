//! llama.cpp's hand-written splitters (`unicode_regex_split_custom_*`), which it uses instead of
//! std::regex when the expression is exactly one of the strings it knows. They are reproduced
//! as written, not as the regular expressions they stand for: where they differ from the
//! expression (a space before a letter run of the GPT-2 splitter never joins a run of
//! symbols, a single unmatched codepoint becomes its own piece, ...), llama.cpp's tokens follow
//! the splitter, and so do ours.
//!
//! Each splitter takes the codepoints, their flags, and the spans (lengths in codepoints) the
//! previous expression left, and appends the lengths of its pieces.
#![forbid(unsafe_code)]

use crate::tokenizer::unicode::{is_han, to_lower, CodepointFlags};

/// What a splitter reads past the end of its span: no codepoint (llama.cpp's `OUT_OF_RANGE`).
const OUT: u32 = u32::MAX;

/// One span of codepoints `[ini, end)` with llama.cpp's accessors: outside the span a
/// codepoint is [`OUT`] and flags are empty (not `UNDEFINED`).
struct Span<'a> {
    cpts: &'a [u32],
    flags: &'a [CodepointFlags],
    ini: usize,
    end: usize,
    prev_end: usize,
}

impl Span<'_> {
    #[inline]
    fn cpt(&self, pos: usize) -> u32 {
        if self.ini <= pos && pos < self.end {
            self.cpts[pos]
        } else {
            OUT
        }
    }
    #[inline]
    fn flags(&self, pos: usize) -> CodepointFlags {
        if self.ini <= pos && pos < self.end {
            self.flags[pos]
        } else {
            CodepointFlags::default()
        }
    }
    /// Ends the current piece at `end` (nothing when empty); returns its length.
    #[inline]
    fn add(&mut self, end: usize, out: &mut Vec<usize>) -> usize {
        let len = end - self.prev_end;
        if len > 0 {
            out.push(len);
        }
        self.prev_end = end;
        len
    }
}

/// Runs `body(span, pos, out) -> new pos` over every span, as each splitter's loop does.
fn for_spans(
    cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
    mut body: impl FnMut(&mut Span<'_>, usize, &mut Vec<usize>) -> usize,
) {
    let mut start = 0;
    for &len in spans {
        let mut s = Span {
            cpts,
            flags,
            ini: start,
            end: start + len,
            prev_end: start,
        };
        start += len;
        let mut pos = s.ini;
        while pos < s.end {
            pos = body(&mut s, pos, out);
        }
    }
}

/// `'s|'t|'m|'d` and `'re|'ve|'ll` at `pos`: the length of the contraction, or 0. `lower`
/// lowercases the letters first (the case-insensitive splitters).
#[inline]
fn contraction(s: &Span<'_>, pos: usize, lower: bool) -> usize {
    if s.cpt(pos) != '\'' as u32 || pos + 1 >= s.end {
        return 0;
    }
    let low = |c: u32| if lower { to_lower(c) } else { c };
    let next = low(s.cpt(pos + 1));
    if [b's', b't', b'm', b'd'].iter().any(|&c| next == c as u32) {
        return 2;
    }
    if pos + 2 < s.end {
        let next2 = low(s.cpt(pos + 2));
        let is = |a: u8, b: u8| next == a as u32 && next2 == b as u32;
        if is(b'r', b'e') || is(b'v', b'e') || is(b'l', b'l') {
            return 3;
        }
    }
    0
}

#[inline]
fn is_cr_lf(c: u32) -> bool {
    c == '\r' as u32 || c == '\n' as u32
}

/// The whitespace tail shared by the LLaMA-3 family: `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`, else a
/// single unmatched codepoint. Returns the new position.
#[inline]
fn whitespace_tail(s: &mut Span<'_>, pos: usize, out: &mut Vec<usize>) -> usize {
    let mut n = 0;
    let mut last_r_or_n = 0;
    while s.flags(pos + n).is_whitespace() {
        if is_cr_lf(s.cpt(pos + n)) {
            last_r_or_n = pos + n + 1;
        }
        n += 1;
    }
    if last_r_or_n > 0 {
        s.add(last_r_or_n, out);
        return last_r_or_n;
    }
    if n > 1 && s.cpt(pos + n) != OUT {
        s.add(pos + n - 1, out);
        return pos + n - 1;
    }
    if n > 0 {
        s.add(pos + n, out);
        return pos + n;
    }
    s.add(pos + 1, out);
    pos + 1
}

/// ` ?[^\s\p{L}\p{N}]+[\r\n]*` of the LLaMA-3 family, when it applies at `pos` (`marks`: the
/// class excludes `\p{M}` too, Qwen3.5's form). Note llama.cpp's test: the first codepoint's
/// own flags must be non-empty, the following ones' flags are tested after the optional space.
#[inline]
fn symbols_then_newlines(
    s: &mut Span<'_>,
    pos: usize,
    marks: bool,
    out: &mut Vec<usize>,
) -> Option<usize> {
    let cpt = s.cpt(pos);
    let flags = s.flags(pos);
    let excluded = |f: CodepointFlags| {
        f.is_whitespace() || f.is_letter() || f.is_number() || (marks && f.is_accent_mark())
    };
    let mut f2 = if cpt == ' ' as u32 {
        s.flags(pos + 1)
    } else {
        flags
    };
    if excluded(f2) || flags.is_empty() {
        return None;
    }
    let mut pos = pos + usize::from(cpt == ' ' as u32);
    while !excluded(f2) && !f2.is_empty() {
        pos += 1;
        f2 = s.flags(pos);
    }
    while is_cr_lf(s.cpt(pos)) {
        pos += 1;
    }
    s.add(pos, out);
    Some(pos)
}

/// GPT-2: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
pub(super) fn gpt2(cpts: &[u32], flags: &[CodepointFlags], spans: &[usize], out: &mut Vec<usize>) {
    for_spans(cpts, flags, spans, out, |s, pos, out| {
        let cpt = s.cpt(pos);
        let n = contraction(s, pos, false);
        if n > 0 {
            s.add(pos + n, out);
            return pos + n;
        }
        let space = cpt == ' ' as u32;
        let mut f2 = if space {
            s.flags(pos + 1)
        } else {
            s.flags(pos)
        };
        let mut pos = pos;
        if f2.is_letter() {
            pos += usize::from(space);
            while f2.is_letter() {
                pos += 1;
                f2 = s.flags(pos);
            }
            s.add(pos, out);
            return pos;
        }
        if f2.is_number() {
            pos += usize::from(space);
            while f2.is_number() {
                pos += 1;
                f2 = s.flags(pos);
            }
            s.add(pos, out);
            return pos;
        }
        let other = |f: CodepointFlags| {
            !(f.is_whitespace() || f.is_letter() || f.is_number() || f.is_empty())
        };
        if other(f2) {
            pos += usize::from(space);
            while other(f2) {
                pos += 1;
                f2 = s.flags(pos);
            }
            s.add(pos, out);
            return pos;
        }
        let mut n = 0;
        while s.flags(pos + n).is_whitespace() {
            n += 1;
        }
        if n > 1 && s.cpt(pos + n) != OUT {
            s.add(pos + n - 1, out);
            return pos + n - 1;
        }
        if n > 0 {
            s.add(pos + n, out);
            return pos + n;
        }
        s.add(pos + 1, out);
        pos + 1
    });
}

/// The LLaMA-3 family: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,N}|
/// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`, where `digits` is 3 for LLaMA-3 and 1
/// for Qwen2, and `marks` adds `\p{M}` to the letter runs (Qwen3.5).
fn llama3_like(
    cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
    digits: usize,
    marks: bool,
) {
    for_spans(cpts, flags, spans, out, |s, pos, out| {
        let cpt = s.cpt(pos);
        let f = s.flags(pos);
        let n = contraction(s, pos, true);
        if n > 0 {
            s.add(pos + n, out);
            return pos + n;
        }
        let wordy = |f: CodepointFlags| f.is_letter() || (marks && f.is_accent_mark());
        if !(is_cr_lf(cpt) || f.is_number()) && (wordy(f) || wordy(s.flags(pos + 1))) {
            let mut pos = pos + 1;
            while wordy(s.flags(pos)) {
                pos += 1;
            }
            s.add(pos, out);
            return pos;
        }
        if f.is_number() {
            let mut pos = pos;
            if digits == 1 {
                pos += 1;
            } else {
                let mut ini = pos;
                while s.flags(pos).is_number() {
                    pos += 1;
                    if pos - ini >= digits {
                        s.add(pos, out);
                        ini = pos;
                    }
                }
            }
            s.add(pos, out);
            return pos;
        }
        if let Some(pos) = symbols_then_newlines(s, pos, marks, out) {
            return pos;
        }
        whitespace_tail(s, pos, out)
    });
}

/// LLaMA-3's splitter (`\p{N}{1,3}`).
pub(super) fn llama3(
    cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    llama3_like(cpts, flags, spans, out, 3, false);
}

/// Qwen2's splitter (`\p{N}` one digit a piece).
pub(super) fn qwen2(cpts: &[u32], flags: &[CodepointFlags], spans: &[usize], out: &mut Vec<usize>) {
    llama3_like(cpts, flags, spans, out, 1, false);
}

/// Qwen3.5's splitter (Qwen2's with `[\p{L}\p{M}]+` letter runs).
pub(super) fn qwen35(
    cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    llama3_like(cpts, flags, spans, out, 1, true);
}

/// Kimi-K2's splitter: Han runs, letter words (Han excluded) with an optional leading
/// codepoint and a trailing contraction, `\p{N}{1,3}`, then the LLaMA-3 tail.
pub(super) fn kimi_k2(
    cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    for_spans(cpts, flags, spans, out, |s, pos, out| {
        let cpt = s.cpt(pos);
        let f = s.flags(pos);
        let mut pos = pos;
        if is_han(cpt) {
            while is_han(s.cpt(pos)) {
                pos += 1;
            }
            s.add(pos, out);
            return pos;
        }
        let letter = |s: &Span<'_>, p: usize| s.flags(p).is_letter() && !is_han(s.cpt(p));
        let may_lead = !(is_cr_lf(cpt) || f.is_letter() || f.is_number());
        if (f.is_letter() && !is_han(cpt)) || (may_lead && letter(s, pos + 1)) {
            let mut lead = false;
            if may_lead {
                lead = true;
                pos += 1;
            }
            let mut has_letters = false;
            while letter(s, pos) {
                has_letters = true;
                pos += 1;
            }
            if has_letters || (!lead && letter(s, pos)) {
                if !has_letters {
                    pos += 1;
                }
                while letter(s, pos) {
                    pos += 1;
                }
                if s.cpt(pos) == '\'' as u32 && pos + 1 < s.end {
                    let next = to_lower(s.cpt(pos + 1));
                    if [b's', b't', b'm', b'd'].iter().any(|&c| next == c as u32) {
                        pos += 2;
                    } else if pos + 2 < s.end {
                        let next2 = to_lower(s.cpt(pos + 2));
                        let is = |a: u8, b: u8| next == a as u32 && next2 == b as u32;
                        if is(b'r', b'e') || is(b'v', b'e') || is(b'l', b'l') {
                            pos += 3;
                        }
                    }
                }
                s.add(pos, out);
                return pos;
            } else if lead {
                pos -= 1;
            }
        }
        if f.is_number() {
            let mut ini = pos;
            while s.flags(pos).is_number() {
                pos += 1;
                if pos - ini >= 3 {
                    s.add(pos, out);
                    ini = pos;
                }
            }
            s.add(pos, out);
            return pos;
        }
        if let Some(pos) = symbols_then_newlines(s, pos, false, out) {
            return pos;
        }
        whitespace_tail(s, pos, out)
    });
}

/// AFMoE's digit splitter (also llama.cpp's stand-in for Tiny Aya's
/// `\d{1,3}(?=(?:\d{3})*\b)`): a run of `\p{N}` splits into a leading 1-2 digits (its length
/// modulo 3) then threes; everything else between runs stays one piece.
pub(super) fn afmoe(
    _cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    let mut start = 0;
    for &len in spans {
        let (ini, end) = (start, start + len);
        start = end;
        let mut prev_end = ini;
        let mut add = |to: usize, out: &mut Vec<usize>| {
            if to > prev_end {
                out.push(to - prev_end);
            }
            prev_end = to;
        };
        let mut pos = ini;
        while pos < end {
            if flags[pos].is_number() {
                let digits_start = pos;
                while pos < end && flags[pos].is_number() {
                    pos += 1;
                }
                let count = pos - digits_start;
                let mut cur = digits_start;
                if count % 3 > 0 {
                    cur += count % 3;
                    add(cur, out);
                }
                while cur < digits_start + count {
                    cur += 3;
                    add(cur, out);
                }
                continue;
            }
            pos += 1;
        }
        add(end, out);
    }
}

/// `[^\n]+|[\n]+`: runs of non-newlines and runs of newlines.
pub(super) fn newlines(
    cpts: &[u32],
    _flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    let mut start = 0;
    for &len in spans {
        let end = start + len;
        let mut pos = start;
        while pos < end {
            let nl = cpts[pos] == '\n' as u32;
            let run = pos;
            while pos < end && (cpts[pos] == '\n' as u32) == nl {
                pos += 1;
            }
            out.push(pos - run);
        }
        start = end;
    }
}

/// `\s+$` as std::wregex runs it (DeepSeek LLM's list): per span, the trailing whitespace is one
/// piece and what precedes it another. (wregex's `\s` is ASCII, but llama.cpp turns non-ASCII
/// whitespace into `\v` first, so `\s` is exactly the whitespace flag; `$` is the span's end.)
/// std::regex retries every position of a whitespace run and scans it to its end each time,
/// quadratic in the run; this is linear.
pub(super) fn trailing_whitespace(
    _cpts: &[u32],
    flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    let mut start = 0;
    for &len in spans {
        let end = start + len;
        let mut t = end;
        while t > start && flags[t - 1].is_whitespace() {
            t -= 1;
        }
        if t > start {
            out.push(t - start);
        }
        if end > t {
            out.push(end - t);
        }
        start = end;
    }
}

/// `(?=(\d{3})+(?!\d))` as std::wregex runs it (SuperBPE's list): an empty match wherever the
/// ASCII digits from there to the next non-digit number a positive multiple of three, each
/// empty match a piece of its own (llama.cpp keeps them), the stretches between the others.
/// std::regex scans the rest of a digit run at every position, quadratic in the run; this
/// counts each run once from its end.
pub(super) fn digit_triples(
    cpts: &[u32],
    _flags: &[CodepointFlags],
    spans: &[usize],
    out: &mut Vec<usize>,
) {
    let mut start = 0;
    let mut run = Vec::new();
    for &len in spans {
        let end = start + len;
        // run[i]: ASCII digits from start + i on, within the span
        run.clear();
        run.resize(len + 1, 0usize);
        for i in (0..len).rev() {
            if (0x30..=0x39).contains(&cpts[start + i]) {
                run[i] = run[i + 1] + 1;
            }
        }
        let mut done = start;
        for (i, &l) in run[..len].iter().enumerate() {
            if l >= 3 && l % 3 == 0 {
                let p = start + i;
                if p > done {
                    out.push(p - done);
                }
                out.push(0);
                done = p;
            }
        }
        if end > done {
            out.push(end - done);
        }
        start = end;
    }
}
