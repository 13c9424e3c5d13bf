//! Value statistics of tensors (`gguf tensors --stats`): a table with a sparkline of each
//! histogram for people, one JSON object per file for scripts.

use ggufkit::render::cost_member;
use ggufkit::stats::{TensorStats, HISTOGRAM_BINS as BINS};
use ggufkit::{Error, ReadCost, TensorInfo};

use super::grouped;
use super::json::Json;
use super::table::{Align, Table};

/// Why a tensor has no statistics, as its row says it.
fn error_text(e: &Error) -> String {
    match e {
        Error::TensorDataMissing { .. } => {
            "its data is not in the file (cut short, or a header without data)".to_string()
        }
        Error::TensorNotDequantizable { ty, .. } => format!("type {ty} has no float form"),
        other => other.to_string(),
    }
}

/// A number in at most about 10 characters: plain for moderate magnitudes, scientific otherwise.
fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if (1e-3..1e5).contains(&a) {
        let s = format!("{v:.5}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{v:.3e}")
    }
}

/// The histogram as a bar of block characters, one per bin (space for an empty bin).
pub fn sparkline(h: &[u64; BINS]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let top = h.iter().copied().max().unwrap_or(0);
    h.iter()
        .map(|&c| {
            if c == 0 || top == 0 {
                ' '
            } else {
                // 1..=8 eighths, rounded up so that any non-empty bin shows.
                let level = (c as u128 * 8).div_ceil(top as u128).clamp(1, 8) as usize;
                BARS[level - 1]
            }
        })
        .collect()
}

/// The human table: one row per tensor.
pub fn human(rows: &[TensorInfo<'_>], stats: &[Result<TensorStats, Error>]) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("type", Align::Left),
        ("elements", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("mean", Align::Right),
        ("std", Align::Right),
        ("nan", Align::Right),
        ("inf", Align::Right),
        ("zeros", Align::Right),
        ("histogram", Align::Left),
    ]);
    let dash = || "-".to_string();
    for (r, s) in rows.iter().zip(stats) {
        let mut row = vec![
            r.name().into_owned(),
            r.tensor_type().to_string(),
            grouped(r.n_elements()),
        ];
        match s {
            Ok(s) => row.extend([
                s.min.map_or_else(dash, |v| num(f64::from(v))),
                s.max.map_or_else(dash, |v| num(f64::from(v))),
                s.mean.map_or_else(dash, num),
                s.std.map_or_else(dash, num),
                grouped(s.nan),
                grouped(s.inf),
                grouped(s.zeros),
                format!("[{}]", sparkline(&s.histogram)),
            ]),
            Err(e) => {
                row.extend(std::iter::repeat_with(dash).take(7));
                row.push(format!("error: {}", error_text(e)));
            }
        }
        t.row(row);
    }
    let errors = stats.iter().filter(|s| s.is_err()).count();
    let footer = vec![
        format!(
            "{} tensor{}{}",
            grouped(rows.len() as u64),
            if rows.len() == 1 { "" } else { "s" },
            if errors > 0 {
                format!(", {errors} unreadable")
            } else {
                String::new()
            }
        ),
        String::new(),
        grouped(rows.iter().map(|r| r.n_elements()).sum()),
    ];
    let footer: Vec<String> = footer
        .into_iter()
        .chain(std::iter::repeat_with(String::new))
        .take(11)
        .collect();
    t.render(&[footer])
}

/// The JSON object of one file (with what fetching it cost, for a remote file), with a newline.
pub fn json_line(
    file: &str,
    rows: &[TensorInfo<'_>],
    stats: &[Result<TensorStats, Error>],
    cost: Option<ReadCost>,
) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("tensors").raw("[");
    for (i, (r, s)) in rows.iter().zip(stats).enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").text(r.name_bytes());
        j.raw(",").tensor_type(r.tensor_type());
        j.raw(",").key("n_elements").u64(r.n_elements());
        match s {
            Ok(s) => {
                let opt = |j: &mut Json, k: &str, v: Option<f64>| {
                    j.raw(",").key(k);
                    match v {
                        Some(v) => j.f64(v),
                        None => j.raw("null"),
                    };
                };
                opt(&mut j, "min", s.min.map(f64::from));
                opt(&mut j, "max", s.max.map(f64::from));
                opt(&mut j, "mean", s.mean);
                opt(&mut j, "std", s.std);
                j.raw(",").key("finite").u64(s.finite);
                j.raw(",").key("nan").u64(s.nan);
                j.raw(",").key("inf").u64(s.inf);
                j.raw(",").key("zeros").u64(s.zeros);
                j.raw(",").key("histogram").raw("[");
                for (k, c) in s.histogram.iter().enumerate() {
                    if k > 0 {
                        j.raw(",");
                    }
                    j.u64(*c);
                }
                j.raw("]");
            }
            Err(e) => {
                j.raw(",").key("error").str(&error_text(e));
            }
        }
        j.raw("}");
    }
    j.raw("]");
    cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_levels() {
        let mut h = [0u64; BINS];
        h[0] = 8;
        h[1] = 1;
        h[9] = 4;
        assert_eq!(sparkline(&h), "█▁       ▄");
        assert_eq!(sparkline(&[0; BINS]), " ".repeat(BINS));
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(-0.25), "-0.25");
        assert_eq!(num(1e-7), "1.000e-7");
        assert_eq!(num(123456.0), "1.235e5");
    }
}
