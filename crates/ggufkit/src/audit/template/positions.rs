//! Byte offsets inside a template as the 1-based line and column (in characters) a finding
//! shows.
#![forbid(unsafe_code)]

/// Byte offset → 1-based line and column (in characters). Queries come mostly in increasing
/// order, so the last answer is kept and the next column counted on from it: a template of one
/// long line costs a pass, not a pass per token.
pub(super) struct Positions<'a> {
    line_starts: Vec<usize>,
    src: &'a str,
    /// The last query: its byte offset and 0-based column.
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> Positions<'a> {
    pub(super) fn new(src: &'a str) -> Positions<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Positions {
            line_starts,
            src,
            last: std::cell::Cell::new((0, 0)),
        }
    }

    pub(super) fn at(&self, byte: usize) -> (u32, u32) {
        let byte = byte.min(self.src.len());
        let line = self.line_starts.partition_point(|&s| s <= byte);
        let start = self.line_starts[line.saturating_sub(1)];
        let (last_byte, last_col) = self.last.get();
        let (from, base) = if last_byte >= start && last_byte <= byte {
            (last_byte, last_col)
        } else {
            (start, 0)
        };
        let col = base
            + self
                .src
                .get(from..byte)
                .map_or(byte - from, |s| s.chars().count());
        self.last.set((byte, col));
        (line as u32, col as u32 + 1)
    }
}
