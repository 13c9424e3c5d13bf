//! The manifest `gguf hash` writes and `--check` reads back, one section per file:
//! ```text
//! # gguf hash: model.gguf
//! xxh64  2d06800538d394c2  tensor  token_embd.weight
//! xxh64  9a4a1c7a1f0e3b11  data
//! ```
//! Fields are separated by two spaces; a tensor name is the rest of its line, escaped by
//! [`escape_line`]. `data` is the digest of the whole tensor data section (padding included).
#![forbid(unsafe_code)]

use std::path::Path;

use crate::error::{Error, ManifestProblem, Result};
use crate::escape::{escape_line, unescape_line};

use super::digest::{Digest, HashAlgo};
use super::file::{FileHashes, TensorHash};

/// The comment line that starts a file's section.
const SECTION_MARK: &str = "gguf hash:";

/// The manifest section of one file, as `gguf hash` prints it: `file` is the name the section
/// goes by (the path as given).
pub fn manifest_section(file: &str, h: &FileHashes) -> String {
    let algo = h.algo.name();
    let mut out = format!("# {SECTION_MARK} {}\n", escape_line(file));
    for t in &h.tensors {
        out.push_str(&format!(
            "{algo}  {}  tensor  {}\n",
            t.digest,
            escape_line(&t.name)
        ));
    }
    out.push_str(&format!("{algo}  {}  data\n", h.data));
    out
}

/// A manifest read back: its sections in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// One per `# gguf hash: FILE` line; lines before the first such line form a section without
    /// a file.
    pub sections: Vec<Section>,
}

/// The hashes a manifest holds for one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// The file it names, when it has a `# gguf hash:` line.
    pub file: Option<String>,
    /// The algorithm of its lines; `None` for a section without any.
    pub algo: Option<HashAlgo>,
    /// The tensor lines, in order.
    pub tensors: Vec<TensorHash>,
    /// The `data` line.
    pub data: Option<Digest>,
}

impl Manifest {
    /// Reads and parses the manifest at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<Manifest> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io_at(path.display().to_string(), path, e))?;
        Manifest::parse(&text)
    }

    /// Parses a manifest; a line out of format is [`Error::ManifestLine`], naming the line, its
    /// byte offset and what is wrong. Blank lines and other comments are skipped.
    pub fn parse(text: &str) -> Result<Manifest> {
        let mut sections: Vec<Section> = Vec::new();
        let mut offset = 0usize;
        for (n, raw) in text.split_inclusive('\n').enumerate() {
            let at = offset;
            offset += raw.len();
            let line = raw.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('#') {
                if let Some(f) = rest.trim_start().strip_prefix(SECTION_MARK) {
                    sections.push(Section {
                        file: Some(unescape_line(f.trim())),
                        ..Section::default()
                    });
                }
                continue;
            }
            let err = |problem| Error::ManifestLine {
                line: n + 1,
                offset: at as u64,
                problem: Box::new(problem),
            };
            if sections.is_empty() {
                sections.push(Section::default());
            }
            let last = sections.len() - 1;
            sections[last].add_line(line).map_err(err)?;
        }
        Ok(Manifest { sections })
    }

    /// The section for `file`: the one naming it as given, else the one naming a file of the same
    /// base name, else the only section.
    pub fn section_for(&self, file: &Path) -> Option<&Section> {
        let shown = file.display().to_string();
        let base = file.file_name().map(|b| b.to_string_lossy().into_owned());
        let base_of = |s: &Section| {
            s.file.as_deref().and_then(|f| {
                Path::new(f)
                    .file_name()
                    .map(|b| b.to_string_lossy().into_owned())
            })
        };
        self.sections
            .iter()
            .find(|s| s.file.as_deref() == Some(shown.as_str()))
            .or_else(|| self.sections.iter().find(|s| base_of(s) == base))
            .or(match self.sections.as_slice() {
                [only] => Some(only),
                _ => None,
            })
    }
}

impl Section {
    /// Adds one `ALGO  HEX  tensor  NAME` or `ALGO  HEX  data` line.
    fn add_line(&mut self, line: &str) -> Result<(), ManifestProblem> {
        let fields: Vec<&str> = line.splitn(4, "  ").collect();
        let [algo, hex, kind, rest @ ..] = fields.as_slice() else {
            return Err(ManifestProblem::Syntax);
        };
        let algo = HashAlgo::from_name(algo)
            .ok_or_else(|| ManifestProblem::UnknownAlgorithm(algo.to_string()))?;
        let digest = Digest::from_hex(algo, hex).ok_or_else(|| ManifestProblem::BadDigest {
            algo: algo.name(),
            digits: algo.hex_digits(),
            found: hex.to_string(),
        })?;
        if let Some(section) = self.algo.filter(|&a| a != algo) {
            return Err(ManifestProblem::MixedAlgorithms {
                section: section.name(),
                found: algo.name(),
            });
        }
        self.algo = Some(algo);
        match (*kind, rest) {
            ("tensor", [name]) => self.tensors.push(TensorHash {
                name: unescape_line(name),
                digest,
            }),
            ("data", []) => self.data = Some(digest),
            _ => return Err(ManifestProblem::Syntax),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes() -> FileHashes {
        FileHashes {
            algo: HashAlgo::Xxh64,
            tensors: vec![
                TensorHash {
                    name: "a b".into(),
                    digest: Digest::Xxh64(0x0123456789abcdef),
                },
                TensorHash {
                    name: "x\ny\\".into(),
                    digest: Digest::Xxh64(0xfedcba9876543210),
                },
            ],
            data: Digest::Xxh64(0xff),
        }
    }

    #[test]
    fn a_section_reads_back() {
        let h = hashes();
        let text = manifest_section("dir/m.gguf", &h);
        assert_eq!(
            text,
            "# gguf hash: dir/m.gguf\n\
             xxh64  0123456789abcdef  tensor  a b\n\
             xxh64  fedcba9876543210  tensor  x\\ny\\\\\n\
             xxh64  00000000000000ff  data\n"
        );
        let m = Manifest::parse(&text).unwrap();
        assert_eq!(m.sections.len(), 1);
        let s = &m.sections[0];
        assert_eq!(s.file.as_deref(), Some("dir/m.gguf"));
        assert_eq!(s.algo, Some(HashAlgo::Xxh64));
        assert_eq!(s.tensors, h.tensors);
        assert_eq!(s.data, Some(h.data));
    }

    fn problem(text: &str) -> (usize, u64, ManifestProblem) {
        match Manifest::parse(text) {
            Err(Error::ManifestLine {
                line,
                offset,
                problem,
            }) => (line, offset, *problem),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(
            problem("# c\nxxh64  123  data\n"),
            (
                2,
                4,
                ManifestProblem::BadDigest {
                    algo: "xxh64",
                    digits: 16,
                    found: "123".into()
                }
            )
        );
        assert_eq!(
            problem("md5  0123456789abcdef  data\n").2,
            ManifestProblem::UnknownAlgorithm("md5".into())
        );
        assert_eq!(
            problem("xxh64  0123456789abcdef  blob\n").2,
            ManifestProblem::Syntax
        );
        assert_eq!(
            problem("xxh64  0123456789abcdef  data  extra\n").2,
            ManifestProblem::Syntax
        );
        assert_eq!(problem("\n\nxxh64\n").0, 3);
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(
            problem(&format!(
                "xxh64  0123456789abcdef  data\nsha256  {sha}  data\n"
            )),
            (
                2,
                30,
                ManifestProblem::MixedAlgorithms {
                    section: "xxh64",
                    found: "sha256"
                }
            )
        );
        let e = Manifest::parse("xxh64  nothex  data\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 0: line 1: 'nothex' is not a xxh64 digest (16 hex digits)"
        );
    }

    #[test]
    fn sections_are_found_by_path_then_name_then_alone() {
        let mut text = manifest_section("dir/a.gguf", &hashes());
        text.push_str(&manifest_section("b.gguf", &hashes()));
        let m = Manifest::parse(&text).unwrap();
        let file = |s: Option<&Section>| s.and_then(|s| s.file.clone());
        assert_eq!(
            file(m.section_for(Path::new("dir/a.gguf"))).as_deref(),
            Some("dir/a.gguf")
        );
        assert_eq!(
            file(m.section_for(Path::new("elsewhere/a.gguf"))).as_deref(),
            Some("dir/a.gguf")
        );
        assert_eq!(m.section_for(Path::new("c.gguf")), None);
        let one = Manifest::parse(&manifest_section("x.gguf", &hashes())).unwrap();
        assert!(one.section_for(Path::new("c.gguf")).is_some());
    }
}
