//! Plain-text tables for people: columns padded to their widest cell, numbers right-aligned;
//! widths count what a terminal shows (colour escapes take no room).

use super::visible_width;

/// How a column is aligned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// The columns of a table: their headers, alignment and widths. A renderer that can produce its
/// rows twice measures them with [`Columns::measure`] and then writes each with
/// [`Columns::line`], holding no row; [`Table`] keeps the rows for the others.
#[derive(Clone)]
pub struct Columns {
    header: Vec<String>,
    align: Vec<Align>,
    /// The widest cell of each column so far, the header included.
    width: Vec<usize>,
}

impl Columns {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Columns {
            header: columns.iter().map(|c| c.0.to_string()).collect(),
            align: columns.iter().map(|c| c.1).collect(),
            width: columns.iter().map(|c| visible_width(c.0)).collect(),
        }
    }

    /// Widens the columns to fit `cells` (cells past the columns are ignored).
    pub fn measure<'c>(&mut self, cells: impl IntoIterator<Item = &'c str>) {
        for (w, c) in self.width.iter_mut().zip(cells) {
            *w = (*w).max(visible_width(c));
        }
    }

    /// Bytes a line takes at most, padding and separators included.
    fn line_len(&self) -> usize {
        self.width.iter().sum::<usize>() + 2 * self.width.len() + 1
    }

    /// Appends `cells` as one line: padded to the widths, two spaces apart, no trailing space.
    /// Missing cells are empty; cells past the columns are dropped.
    pub fn line<'c>(&self, out: &mut String, cells: impl IntoIterator<Item = &'c str>) {
        let n = self.width.len();
        let start = out.len();
        let mut cells = cells.into_iter();
        for (i, w) in self.width.iter().enumerate() {
            let c = cells.next().unwrap_or("");
            let pad = w - visible_width(c).min(*w);
            if i > 0 {
                out.push_str("  ");
            }
            if self.align[i] == Align::Right {
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(c);
            } else {
                out.push_str(c);
                if i + 1 < n {
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        let kept = start + out[start..].trim_end().len();
        out.truncate(kept);
        out.push('\n');
    }

    /// The header line.
    pub fn header_line(&self, out: &mut String) {
        self.line(out, self.header.iter().map(String::as_str));
    }

    /// A string sized for `lines` lines and `extra` more bytes.
    pub fn buffer_for(&self, lines: usize, extra: usize) -> String {
        String::with_capacity(self.line_len().saturating_mul(lines).saturating_add(extra))
    }
}

/// A table built row by row, rendered with two spaces between columns.
///
/// The cells are kept in one string with their ends: a `String` per cell costs more than its
/// text, and a hostile header has a million of them.
pub struct Table {
    columns: Columns,
    /// Every body cell's text, one after the other, a row being as many cells as columns.
    text: String,
    /// Where each body cell ends in `text`.
    ends: Vec<usize>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            columns: Columns::new(columns),
            text: String::new(),
            ends: Vec::new(),
        }
    }

    fn n(&self) -> usize {
        self.columns.width.len()
    }

    /// Adds a row; cells past the columns are dropped, missing ones are empty.
    pub fn row(&mut self, cells: Vec<String>) {
        self.columns.measure(cells.iter().map(String::as_str));
        for i in 0..self.n() {
            self.text
                .push_str(cells.get(i).map(String::as_str).unwrap_or(""));
            self.ends.push(self.text.len());
        }
    }

    fn rows(&self) -> usize {
        self.ends.len() / self.n().max(1)
    }

    /// The cells of body row `r`.
    fn cells(&self, r: usize) -> impl Iterator<Item = &str> {
        let n = self.n();
        (r * n..(r + 1) * n).map(move |k| {
            let start = if k == 0 { 0 } else { self.ends[k - 1] };
            &self.text[start..self.ends[k]]
        })
    }

    /// The table as text; `footer` rows (totals) follow a rule line.
    pub fn render(&self, footer: &[Vec<String>]) -> String {
        let mut columns = self.columns.clone();
        for row in footer {
            columns.measure(row.iter().map(String::as_str));
        }
        let mut out = columns.buffer_for(self.rows() + footer.len() + 2, 0);
        columns.header_line(&mut out);
        for r in 0..self.rows() {
            columns.line(&mut out, self.cells(r));
        }
        if !footer.is_empty() {
            let n = self.n();
            let total: usize = columns.width.iter().sum::<usize>() + 2 * (n.saturating_sub(1));
            out.push_str(&"-".repeat(total));
            out.push('\n');
            for r in footer {
                columns.line(&mut out, r.iter().map(String::as_str));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_and_aligns() {
        let mut t = Table::new(&[("name", Align::Left), ("n", Align::Right)]);
        t.row(vec!["a".into(), "1".into()]);
        t.row(vec!["long".into(), "100".into()]);
        let s = t.render(&[vec!["total".into(), "101".into()]]);
        assert_eq!(
            s,
            "name     n\na        1\nlong   100\n----------\ntotal  101\n"
        );
    }

    #[test]
    fn short_rows_pad_and_long_rows_drop() {
        let mut t = Table::new(&[("a", Align::Left), ("b", Align::Right), ("c", Align::Left)]);
        t.row(vec!["x".into()]);
        t.row(vec!["yy".into(), "12".into(), "z".into(), "dropped".into()]);
        assert_eq!(t.render(&[]), "a    b  c\nx\nyy  12  z\n");
    }
}
