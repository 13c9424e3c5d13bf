//! The flags llama.cpp keeps per codepoint (`unicode_cpt_flags`): one general category, and
//! whether it is whitespace, a lowercase or uppercase form, or an NFD base.
#![forbid(unsafe_code)]

use super::tables::FLAG_RUNS;
use std::sync::OnceLock;

/// A codepoint's flags, with llama.cpp's bit values (`unicode_cpt_flags::as_uint`).
///
/// `CodepointFlags::default()` (no bit set) is what llama.cpp's splitters see past the end of a
/// span; [`flags`] never returns it (a codepoint without a category is [`Self::UNDEFINED`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CodepointFlags(pub u16);

impl CodepointFlags {
    /// No category (unassigned, surrogate, beyond U+10FFFF).
    pub const UNDEFINED: u16 = 0x0001;
    /// `\p{N}`.
    pub const NUMBER: u16 = 0x0002;
    /// `\p{L}`.
    pub const LETTER: u16 = 0x0004;
    /// `\p{Z}`.
    pub const SEPARATOR: u16 = 0x0008;
    /// `\p{M}`.
    pub const ACCENT_MARK: u16 = 0x0010;
    /// `\p{P}`.
    pub const PUNCTUATION: u16 = 0x0020;
    /// `\p{S}`.
    pub const SYMBOL: u16 = 0x0040;
    /// `\p{C}` (assigned control, format, private use).
    pub const CONTROL: u16 = 0x0080;
    /// The category bits.
    pub const MASK_CATEGORIES: u16 = 0x00FF;
    /// `\s` as llama.cpp's whitespace set has it.
    pub const WHITESPACE: u16 = 0x0100;
    /// The target of some lowercase mapping.
    pub const LOWERCASE: u16 = 0x0200;
    /// The target of some uppercase mapping.
    pub const UPPERCASE: u16 = 0x0400;
    /// The result of some NFD range.
    pub const NFD: u16 = 0x0800;

    /// The raw bits (llama.cpp's `as_uint()`).
    pub const fn bits(self) -> u16 {
        self.0
    }
    /// The category bits only (llama.cpp's `category_flag()`).
    pub const fn category(self) -> u16 {
        self.0 & Self::MASK_CATEGORIES
    }
    /// No bit set: only the "outside the span" value of the splitters.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// See [`Self::UNDEFINED`].
    pub const fn is_undefined(self) -> bool {
        self.0 & Self::UNDEFINED != 0
    }
    /// See [`Self::NUMBER`].
    pub const fn is_number(self) -> bool {
        self.0 & Self::NUMBER != 0
    }
    /// See [`Self::LETTER`].
    pub const fn is_letter(self) -> bool {
        self.0 & Self::LETTER != 0
    }
    /// See [`Self::SEPARATOR`].
    pub const fn is_separator(self) -> bool {
        self.0 & Self::SEPARATOR != 0
    }
    /// See [`Self::ACCENT_MARK`].
    pub const fn is_accent_mark(self) -> bool {
        self.0 & Self::ACCENT_MARK != 0
    }
    /// See [`Self::PUNCTUATION`].
    pub const fn is_punctuation(self) -> bool {
        self.0 & Self::PUNCTUATION != 0
    }
    /// See [`Self::SYMBOL`].
    pub const fn is_symbol(self) -> bool {
        self.0 & Self::SYMBOL != 0
    }
    /// See [`Self::CONTROL`].
    pub const fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }
    /// See [`Self::WHITESPACE`].
    pub const fn is_whitespace(self) -> bool {
        self.0 & Self::WHITESPACE != 0
    }
    /// See [`Self::LOWERCASE`].
    pub const fn is_lowercase(self) -> bool {
        self.0 & Self::LOWERCASE != 0
    }
    /// See [`Self::UPPERCASE`].
    pub const fn is_uppercase(self) -> bool {
        self.0 & Self::UPPERCASE != 0
    }
    /// See [`Self::NFD`].
    pub const fn is_nfd(self) -> bool {
        self.0 & Self::NFD != 0
    }
}

/// Codepoints per block of the two-stage lookup.
const BLOCK: usize = 128;

/// The two-stage table built once from the runs: per block of [`BLOCK`] codepoints an index
/// into a list of distinct blocks, so a lookup is two array reads instead of a binary search.
struct Stages {
    index: Vec<u16>,
    blocks: Vec<u16>,
}

fn stages() -> &'static Stages {
    static STAGES: OnceLock<Stages> = OnceLock::new();
    STAGES.get_or_init(|| {
        let n_blocks = super::MAX_CODEPOINTS as usize / BLOCK;
        let mut index = Vec::with_capacity(n_blocks);
        let mut blocks: Vec<u16> = Vec::new();
        let mut seen: hashbrown::HashMap<[u16; BLOCK], u16> = hashbrown::HashMap::new();
        // blocks inside one run (most of the codepoint space), by their flags
        let mut uniform: hashbrown::HashMap<u16, u16> = hashbrown::HashMap::new();
        let mut run = 0usize;
        for b in 0..n_blocks {
            let first = (b * BLOCK) as u32;
            while run + 1 < FLAG_RUNS.len() && FLAG_RUNS[run + 1].0 <= first {
                run += 1;
            }
            if FLAG_RUNS
                .get(run + 1)
                .is_none_or(|next| next.0 >= first + BLOCK as u32)
            {
                let flags = FLAG_RUNS[run].1;
                let id = *uniform.entry(flags).or_insert_with(|| {
                    let id = (blocks.len() / BLOCK) as u16;
                    blocks.extend_from_slice(&[flags; BLOCK]);
                    id
                });
                index.push(id);
                continue;
            }
            let mut block = [0u16; BLOCK];
            for (i, slot) in block.iter_mut().enumerate() {
                let cp = (b * BLOCK + i) as u32;
                while run + 1 < FLAG_RUNS.len() && FLAG_RUNS[run + 1].0 <= cp {
                    run += 1;
                }
                *slot = FLAG_RUNS[run].1;
            }
            let id = *seen.entry(block).or_insert_with(|| {
                let id = (blocks.len() / BLOCK) as u16;
                blocks.extend_from_slice(&block);
                id
            });
            index.push(id);
        }
        Stages { index, blocks }
    })
}

/// A codepoint's flags as llama.cpp's `unicode_cpt_flags_from_cpt` gives them
/// ([`CodepointFlags::UNDEFINED`] at and beyond 0x110000).
#[inline]
pub fn flags(cp: u32) -> CodepointFlags {
    if cp >= super::MAX_CODEPOINTS {
        return CodepointFlags(CodepointFlags::UNDEFINED);
    }
    let s = stages();
    let block = s.index[cp as usize / BLOCK] as usize;
    CodepointFlags(s.blocks[block * BLOCK + cp as usize % BLOCK])
}

/// The flags of every codepoint of `cpts`, appended to `out` (one table fetch for all).
pub(crate) fn flags_of_all(cpts: &[u32], out: &mut Vec<CodepointFlags>) {
    let s = stages();
    out.reserve(cpts.len());
    out.extend(cpts.iter().map(|&cp| {
        if cp >= super::MAX_CODEPOINTS {
            return CodepointFlags(CodepointFlags::UNDEFINED);
        }
        let block = s.index[cp as usize / BLOCK] as usize;
        CodepointFlags(s.blocks[block * BLOCK + cp as usize % BLOCK])
    }));
}

/// The flags by binary search over the generated runs (the reference for [`flags`]'s table).
#[cfg(test)]
pub(super) fn flags_by_search(cp: u32) -> CodepointFlags {
    if cp >= super::MAX_CODEPOINTS {
        return CodepointFlags(CodepointFlags::UNDEFINED);
    }
    let i = FLAG_RUNS.partition_point(|&(start, _)| start <= cp) - 1;
    CodepointFlags(FLAG_RUNS[i].1)
}
