//! The renderers of the subcommands, one file per subject and form (`summary_text.rs`,
//! `layout_json.rs`, `markdown.rs`, `html.rs`...), and what they share: colour, sizes, counts.

pub mod diff;
pub mod dump_json;
pub mod dump_text;
pub mod hash_check;
pub mod html;
pub mod json;
pub mod layout_json;
pub mod layout_text;
pub mod markdown;
pub mod progress;
pub mod quantize_plan;
pub mod summary;
pub mod summary_text;
pub mod svg;
pub mod table;
pub mod tensor;
pub mod tensor_stats;
pub mod tensor_table;
pub mod validation_json;
pub mod validation_text;
pub mod value;

use std::io::{IsTerminal, Write};

/// Whether to colour human output: only on a terminal, and never when `NO_COLOR` is set.
pub fn use_colour() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
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
    fn formats() {
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped(12), "12");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(short_count(270_400_000), "270.4M");
    }
}
