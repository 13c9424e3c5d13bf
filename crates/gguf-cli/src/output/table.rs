//! Plain-text tables for people: columns padded to their widest cell, numbers right-aligned;
//! widths count what a terminal shows (colour escapes take no room).

use super::visible_width;

/// How a column is aligned.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table built row by row, rendered with two spaces between columns.
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            header: columns.iter().map(|c| c.0.to_string()).collect(),
            align: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text; `footer` rows (totals) follow a rule line.
    pub fn render(&self, footer: &[Vec<String>]) -> String {
        let n = self.header.len();
        let mut width = vec![0usize; n];
        for row in std::iter::once(&self.header)
            .chain(&self.rows)
            .chain(footer)
        {
            for (i, c) in row.iter().enumerate().take(n) {
                width[i] = width[i].max(visible_width(c));
            }
        }
        let mut out = String::new();
        let line = |out: &mut String, row: &[String]| {
            let mut s = String::new();
            for (i, w) in width.iter().enumerate() {
                let c = row.get(i).map(String::as_str).unwrap_or("");
                let pad = w - visible_width(c).min(*w);
                if i > 0 {
                    s.push_str("  ");
                }
                if self.align[i] == Align::Right {
                    s.extend(std::iter::repeat_n(' ', pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < n {
                        s.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&mut out, &self.header);
        for r in &self.rows {
            line(&mut out, r);
        }
        if !footer.is_empty() {
            let total: usize = width.iter().sum::<usize>() + 2 * (n.saturating_sub(1));
            out.push_str(&"-".repeat(total));
            out.push('\n');
            for r in footer {
                line(&mut out, r);
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
}
