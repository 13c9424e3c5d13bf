//! `gguf hash FILE... [--algo xxh64|sha256] [--check MANIFEST]`: one line per tensor and one for
//! the whole tensor data section, in a manifest format that `--check` reads back.
//!
//! The manifest, one file per section:
//! ```text
//! # gguf hash: model.gguf
//! xxh64  2d06800538d394c2  tensor  token_embd.weight
//! xxh64  9a4a1c7a1f0e3b11  data
//! ```
//! Fields are separated by two spaces; a tensor name is the rest of its line, with `\\`, `\n`,
//! `\r`, `\t` and other control characters escaped. `data` hashes the bytes from the start of the
//! tensor data section to the length the header implies (padding included).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{open_reporting, CliError, CmdResult, FAILED, FOUND, OK};
use crate::hashing::{self, Algo, FileHashes};
use crate::output::print;
use crate::output::value::escape_line;

#[derive(clap::Args)]
pub struct Args {
    /// Files to hash.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The hash algorithm (with --check, the manifest's own algorithm is used).
    #[arg(long, value_enum, default_value_t = Algo::Xxh64)]
    algo: Algo,
    /// Compare against a manifest written by `gguf hash`; exit 1 on any mismatch.
    #[arg(long, value_name = "MANIFEST")]
    check: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let manifest = match &args.check {
        Some(m) => Some(read_manifest(m)?),
        None => None,
    };
    let mut code = OK;
    for file in &args.files {
        let r = match &manifest {
            None => hash_one(file, args.algo).map(|h| {
                print(&manifest_text(&file.display().to_string(), args.algo, &h));
                OK
            }),
            Some(m) => check_one(file, m, args.check.as_deref().unwrap_or(Path::new(""))),
        };
        match r {
            Ok(c) => code = code.max(c),
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
            }
        }
    }
    Ok(code)
}

fn hash_one(file: &Path, algo: Algo) -> Result<FileHashes, CliError> {
    if crate::remote::is_remote(file) {
        return crate::remote::hash(file, algo);
    }
    let g = open_reporting(file)?;
    g.advise_sequential();
    hashing::hash_file(&g, algo, &file.display().to_string()).ok_or_else(|| {
        CliError::failed(format!(
            "{}: at byte {}: the file is {} bytes long, but its tensor data needs {} bytes",
            file.display(),
            g.actual_len().unwrap_or(0).min(g.expected_len()),
            g.actual_len().unwrap_or(0),
            g.expected_len()
        ))
    })
}

/// The manifest section of one file.
pub fn manifest_text(file: &str, algo: Algo, h: &FileHashes) -> String {
    let mut out = format!("# gguf hash: {}\n", escape_line(file));
    for (name, d) in &h.tensors {
        out.push_str(&format!(
            "{}  {d}  tensor  {}\n",
            algo.name(),
            escape_line(name)
        ));
    }
    out.push_str(&format!("{}  {}  data\n", algo.name(), h.data));
    out
}

/// One section of a manifest: the file it names (if any) and its lines.
struct Section {
    file: Option<String>,
    algo: Option<Algo>,
    tensors: Vec<(String, String)>,
    data: Option<String>,
}

fn read_manifest(path: &Path) -> Result<Vec<Section>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    parse_manifest(&text).map_err(|(line, offset, what)| {
        CliError::failed(format!(
            "{}: at byte {offset}: line {line}: {what}",
            path.display()
        ))
    })
}

/// Parses a manifest; an error is (line number, byte offset of the line, what is wrong).
fn parse_manifest(text: &str) -> Result<Vec<Section>, (usize, usize, String)> {
    let mut sections: Vec<Section> = Vec::new();
    let mut offset = 0usize;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = n + 1;
        let at = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            if let Some(f) = rest.trim_start().strip_prefix("gguf hash:") {
                sections.push(Section {
                    file: Some(unescape(f.trim())),
                    algo: None,
                    tensors: Vec::new(),
                    data: None,
                });
            }
            continue;
        }
        let err = |what: &str| (line_no, at, what.to_string());
        let fields: Vec<&str> = line.splitn(4, "  ").collect();
        if fields.len() < 3 {
            return Err(err(
                "expected `ALGO  HEX  tensor  NAME` or `ALGO  HEX  data`",
            ));
        }
        let algo = Algo::from_name(fields[0])
            .ok_or_else(|| err(&format!("unknown algorithm '{}'", fields[0])))?;
        let hex = fields[1];
        let want_len = if algo == Algo::Xxh64 { 16 } else { 64 };
        if hex.len() != want_len || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err(&format!(
                "'{hex}' is not a {} digest ({want_len} hex digits)",
                algo.name()
            )));
        }
        if sections.is_empty() {
            sections.push(Section {
                file: None,
                algo: None,
                tensors: Vec::new(),
                data: None,
            });
        }
        let s = sections.last_mut().expect("a section");
        if s.algo.is_some_and(|a| a != algo) {
            return Err(err("a section mixes algorithms"));
        }
        s.algo = Some(algo);
        let hex = hex.to_ascii_lowercase();
        match (fields[2], fields.get(3)) {
            ("tensor", Some(name)) => s.tensors.push((unescape(name), hex)),
            ("data", None) => s.data = Some(hex),
            _ => {
                return Err(err(
                    "expected `ALGO  HEX  tensor  NAME` or `ALGO  HEX  data`",
                ))
            }
        }
    }
    Ok(sections)
}

/// Reverses [`escape_line`].
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('u') if it.peek() == Some(&'{') => {
                it.next();
                let hex: String = it.by_ref().take_while(|&c| c != '}').collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&format!("\\u{{{hex}}}")),
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn pick<'m>(sections: &'m [Section], file: &Path) -> Option<&'m Section> {
    let shown = file.display().to_string();
    let base = file.file_name().map(|b| b.to_string_lossy().into_owned());
    sections
        .iter()
        .find(|s| s.file.as_deref() == Some(shown.as_str()))
        .or_else(|| {
            sections.iter().find(|s| {
                s.file.as_deref().and_then(|f| {
                    Path::new(f)
                        .file_name()
                        .map(|b| b.to_string_lossy().into_owned())
                }) == base
            })
        })
        .or_else(|| (sections.len() == 1).then(|| &sections[0]))
}

fn check_one(file: &Path, sections: &[Section], manifest: &Path) -> CmdResult {
    let shown = file.display().to_string();
    let section = pick(sections, file).ok_or_else(|| {
        CliError::failed(format!(
            "{}: no section for {shown} (its sections: {})",
            manifest.display(),
            sections
                .iter()
                .filter_map(|s| s.file.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let Some(algo) = section.algo else {
        return Err(CliError::failed(format!(
            "{}: the section for {shown} has no hashes",
            manifest.display()
        )));
    };
    let got = hash_one(file, algo)?;
    let mut problems = Vec::new();
    let expected: HashMap<&str, &str> = section
        .tensors
        .iter()
        .map(|(n, h)| (n.as_str(), h.as_str()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for (name, d) in &got.tensors {
        seen.insert(name.as_str());
        match expected.get(name.as_str()) {
            Some(&e) if e == d => {}
            Some(&e) => problems.push(format!(
                "MISMATCH  tensor  {}  (expected {e}, got {d})",
                escape_line(name)
            )),
            None => problems.push(format!(
                "EXTRA     tensor  {}  (in the file, not in the manifest)",
                escape_line(name)
            )),
        }
    }
    for (name, _) in &section.tensors {
        if !seen.contains(name.as_str()) {
            problems.push(format!(
                "MISSING   tensor  {}  (in the manifest, not in the file)",
                escape_line(name)
            ));
        }
    }
    match &section.data {
        Some(e) if *e == got.data => {}
        Some(e) => problems.push(format!("MISMATCH  data  (expected {e}, got {})", got.data)),
        None => problems.push("MISSING   data  (the manifest has no data line)".to_string()),
    }
    let mut out = String::new();
    for p in &problems {
        out.push_str(&format!("{shown}: {p}\n"));
    }
    if problems.is_empty() {
        out.push_str(&format!(
            "{shown}: OK ({} tensors and the data section match, {})\n",
            got.tensors.len(),
            algo.name()
        ));
        print(&out);
        Ok(OK)
    } else {
        out.push_str(&format!(
            "{shown}: FAILED ({} problem{})\n",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" }
        ));
        print(&out);
        Ok(FOUND)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trip_and_errors() {
        let h = FileHashes {
            tensors: vec![
                ("a b".into(), "0123456789abcdef".into()),
                ("x\ny\\".into(), "fedcba9876543210".into()),
            ],
            data: "00000000000000ff".into(),
        };
        let text = manifest_text("dir/m.gguf", Algo::Xxh64, &h);
        let s = parse_manifest(&text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].file.as_deref(), Some("dir/m.gguf"));
        assert_eq!(s[0].tensors, h.tensors);
        assert_eq!(s[0].data.as_deref(), Some("00000000000000ff"));
        let e = parse_manifest("# c\nxxh64  123  data\n").err().unwrap();
        assert_eq!((e.0, e.1), (2, 4));
        assert!(parse_manifest("md5  0123456789abcdef  data\n").is_err());
        assert!(parse_manifest("xxh64  0123456789abcdef  blob\n").is_err());
        assert!(
            parse_manifest("xxh64  0123456789abcdef  data\nsha256  0123456789abcdef  data\n")
                .is_err()
        );
    }
}
