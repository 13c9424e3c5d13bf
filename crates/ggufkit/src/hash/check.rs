//! A file's hashes checked against a manifest section: which tensors match, differ, are missing
//! or extra, and whether the data section matches.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

use super::digest::{Digest, HashAlgo};
use super::file::FileHashes;
use super::manifest::Section;

/// What disagrees between a manifest section and a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A tensor whose digest is not the manifest's.
    TensorDiffers {
        /// Its name.
        name: String,
        /// The manifest's digest.
        expected: Digest,
        /// The file's.
        found: Digest,
    },
    /// A tensor in the file, not in the manifest.
    TensorExtra {
        /// Its name.
        name: String,
    },
    /// A tensor in the manifest, not in the file.
    TensorMissing {
        /// Its name.
        name: String,
    },
    /// The data section's digest is not the manifest's.
    DataDiffers {
        /// The manifest's digest.
        expected: Digest,
        /// The file's.
        found: Digest,
    },
    /// The manifest section has no `data` line.
    DataMissing,
}

/// The outcome of [`Section::check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The algorithm of the file's hashes.
    pub algo: HashAlgo,
    /// The tensors whose digests match, in file order.
    pub matching: Vec<String>,
    /// Every disagreement: the file's tensors that differ or are extra (in file order), the
    /// manifest's tensors missing from the file (in manifest order), then the data section.
    pub problems: Vec<Problem>,
}

impl Check {
    /// True when every tensor and the data section match.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

impl Section {
    /// Compares a file's hashes with this section (hash the file with the section's
    /// [`algo`](Section::algo)).
    pub fn check(&self, got: &FileHashes) -> Check {
        let expected: HashMap<&str, Digest> = self
            .tensors
            .iter()
            .map(|t| (t.name.as_str(), t.digest))
            .collect();
        let mut seen = HashSet::new();
        let mut matching = Vec::new();
        let mut problems = Vec::new();
        for t in &got.tensors {
            seen.insert(t.name.as_str());
            match expected.get(t.name.as_str()) {
                Some(&e) if e == t.digest => matching.push(t.name.clone()),
                Some(&e) => problems.push(Problem::TensorDiffers {
                    name: t.name.clone(),
                    expected: e,
                    found: t.digest,
                }),
                None => problems.push(Problem::TensorExtra {
                    name: t.name.clone(),
                }),
            }
        }
        for t in &self.tensors {
            if !seen.contains(t.name.as_str()) {
                problems.push(Problem::TensorMissing {
                    name: t.name.clone(),
                });
            }
        }
        match self.data {
            Some(e) if e == got.data => {}
            Some(e) => problems.push(Problem::DataDiffers {
                expected: e,
                found: got.data,
            }),
            None => problems.push(Problem::DataMissing),
        }
        Check {
            algo: got.algo,
            matching,
            problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::TensorHash;

    fn th(name: &str, v: u64) -> TensorHash {
        TensorHash {
            name: name.into(),
            digest: Digest::Xxh64(v),
        }
    }

    #[test]
    fn every_kind_of_disagreement_in_order() {
        let section = Section {
            file: Some("m.gguf".into()),
            algo: Some(HashAlgo::Xxh64),
            tensors: vec![th("same", 1), th("changed", 2), th("gone", 3)],
            data: Some(Digest::Xxh64(9)),
        };
        let got = FileHashes {
            algo: HashAlgo::Xxh64,
            tensors: vec![th("new", 4), th("same", 1), th("changed", 5)],
            data: Digest::Xxh64(8),
        };
        let c = section.check(&got);
        assert!(!c.passed());
        assert_eq!(c.matching, vec!["same".to_string()]);
        assert_eq!(
            c.problems,
            vec![
                Problem::TensorExtra { name: "new".into() },
                Problem::TensorDiffers {
                    name: "changed".into(),
                    expected: Digest::Xxh64(2),
                    found: Digest::Xxh64(5)
                },
                Problem::TensorMissing {
                    name: "gone".into()
                },
                Problem::DataDiffers {
                    expected: Digest::Xxh64(9),
                    found: Digest::Xxh64(8)
                },
            ]
        );
        let no_data = Section {
            data: None,
            ..section.clone()
        };
        assert_eq!(
            no_data.check(&got).problems.last(),
            Some(&Problem::DataMissing)
        );
    }
}
