//! The renderers of the subcommands, one file per subject and form (`summary_text.rs`,
//! `layout_json.rs`, `markdown.rs`, `html.rs`...), and what they share: colour, sizes, counts.

pub mod audit_sarif;
pub mod audit_text;
pub mod chat;
pub mod convert_plan;
pub mod cost;
pub mod diff;
pub mod dump_text;
pub mod hash_check;
pub mod html;
pub mod json;
pub mod layout_text;
pub mod markdown;
pub mod markup;
pub mod progress;
pub mod quantize_plan;
pub mod recipe;
pub mod scan_progress;
pub mod summary;
pub mod summary_text;
pub mod svg;
pub mod table;
pub mod tensor_stats;
pub mod tensor_table;
pub mod tokens;
pub mod validation_text;
pub mod value;

use std::io::{IsTerminal, Write};

/// Whether to colour human output: on a terminal (or when `CLICOLOR_FORCE` is set to anything
/// but `0`), and never when `NO_COLOR` is set.
pub fn use_colour() -> bool {
    let set = |v: &str| std::env::var_os(v).is_some_and(|v| !v.is_empty());
    let forced =
        set("CLICOLOR_FORCE") && std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0");
    !set("NO_COLOR") && (forced || std::io::stdout().is_terminal())
}

/// The width of `s` on a terminal: its characters, without the ANSI escape sequences that
/// colour it (`ESC [ ... m`), which take no room.
pub fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // skip to the sequence's final byte, a letter
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// `s` padded with spaces to `width` visible characters (left-aligned), escapes not counted.
pub fn pad(s: &str, width: usize) -> String {
    let w = visible_width(s);
    let mut out = String::with_capacity(s.len() + width.saturating_sub(w));
    out.push_str(s);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    out
}

/// ANSI styling that disappears when colour is off.
#[derive(Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    pub fn detect() -> Self {
        Style { on: use_colour() }
    }

    fn wrap(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub fn bold(&self, s: &str) -> String {
        self.wrap("1", s)
    }

    pub fn green(&self, s: &str) -> String {
        self.wrap("32", s)
    }

    pub fn red(&self, s: &str) -> String {
        self.wrap("31", s)
    }

    pub fn yellow(&self, s: &str) -> String {
        self.wrap("33", s)
    }

    pub fn dim(&self, s: &str) -> String {
        self.wrap("2", s)
    }
}

/// How a file's length compares with the length its header implies, in the contract's words:
/// short, with trailing data (`trailing` bytes by its definition), or as the header implies
/// (with any zero padding of a tensor-less file, which is not trailing data).
pub fn size_note(actual: u64, expected: u64, trailing: u64, s: &Style) -> String {
    if actual < expected {
        s.red(&format!(
            "{} short of the {} the header implies",
            human_bytes(expected - actual),
            human_bytes(expected)
        ))
    } else if trailing > 0 {
        s.yellow(&format!(
            "{} of trailing data after the {} the header implies",
            human_bytes(trailing),
            human_bytes(expected)
        ))
    } else if actual > expected {
        format!(
            "as the header implies, with {} of zero padding to the alignment",
            human_bytes(actual - expected)
        )
    } else {
        "as the header implies".to_string()
    }
}

/// Writes to stdout, ignoring a closed pipe (`gguf dump x | head` must not panic).
pub fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes());
    let _ = out.flush();
}

/// Bytes as a human size: `1.50 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.2} {}", UNITS[u])
}

/// A count and its noun, singular or plural as the count asks: `1 tensor`, `1,024 tensors`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { many })
}

/// A count with thousands separators: `1,234,567`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A parameter count the way model cards say it: `270.4M`, `7.24B`.
pub fn short_count(n: u64) -> String {
    let v = n as f64;
    if v >= 1e9 {
        format!("{:.2}B", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}K", v / 1e3)
    } else {
        n.to_string()
    }
}

/// Text of at most `max` characters: longer text is cut and ends in `...`.
pub fn shorten(s: String, max: usize) -> String {
    if s.chars().count() > max {
        let c: String = s.chars().take(max.saturating_sub(3)).collect();
        format!("{c}...")
    } else {
        s
    }
}

/// A shape as people write it: `[4096, 32000]`.
pub fn shape_text(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_takes_no_width() {
        let s = Style { on: true };
        assert_eq!(visible_width(&s.dim("uint32")), 6);
        assert_eq!(pad(&s.red("ab"), 4), format!("{}  ", s.red("ab")));
        assert_eq!(pad("abcdef", 4), "abcdef");
    }

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(counted(1, "tensor", "tensors"), "1 tensor");
        assert_eq!(counted(0, "tensor", "tensors"), "0 tensors");
        assert_eq!(counted(1234, "byte", "bytes"), "1,234 bytes");
    }

    #[test]
    fn formats() {
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped(12), "12");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(short_count(270_400_000), "270.4M");
    }
}
