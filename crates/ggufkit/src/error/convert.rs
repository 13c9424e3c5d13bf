//! Converting a Hugging Face checkpoint folder: what in its files cannot be read or turned into
//! GGUF metadata, each failure naming the file and the key.
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// Why a Hugging Face folder (or a part of it) cannot be converted
/// ([`Error::Convert`](super::Error::Convert)).
///
/// Every variant names the file it comes from; those about a value also name the key.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file the conversion needs is absent.
    #[error("{}: not found ({what})", path.display())]
    MissingFile {
        /// The file looked for.
        path: PathBuf,
        /// What it would have given.
        what: &'static str,
    },
    /// A JSON file that does not parse.
    #[error("{}: line {line}, column {column}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The line of the error (1-based).
        line: usize,
        /// The column of the error (1-based).
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// A key that is absent, or whose value is not what the conversion reads it as.
    #[error("{}: key '{key}': {expected}", path.display())]
    BadKey {
        /// The file.
        path: PathBuf,
        /// The key (a dotted path for nested keys, `model.vocab` say).
        key: String,
        /// What was expected.
        expected: String,
    },
    /// A tokenizer.json that HF's `tokenizers` cannot load or encode with.
    #[error("{}: {message}", path.display())]
    Tokenizer {
        /// The file.
        path: PathBuf,
        /// What `tokenizers` said.
        message: String,
    },
    /// The pre-tokenizer of a BPE tokenizer.json is none the script knows: the ids of its check
    /// text hash to a value absent from its table.
    #[error(
        "{}: unknown pre-tokenizer: its check text hashes to {hash}; supported: {}",
        path.display(),
        supported.join(", ")
    )]
    UnknownPreTokenizer {
        /// The tokenizer.json.
        path: PathBuf,
        /// The sha256 (hex) of the ids of the check text.
        hash: String,
        /// The pre-tokenizer names the table knows.
        supported: Vec<&'static str>,
    },
    /// A tokenizer.model that is not a SentencePiece model.
    #[error("{}: not a SentencePiece model: {message}", path.display())]
    SentencePiece {
        /// The file.
        path: PathBuf,
        /// What the protobuf decoder or the check said.
        message: String,
    },
    /// A vocabulary that the token count or ids contradict.
    #[error("{}: {problem}", path.display())]
    Vocab {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

impl ConvertError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ConvertError::Io {
            path: path.into(),
            source,
        }
    }

    /// A JSON error of serde_json on `path`.
    pub fn json(path: impl Into<PathBuf>, e: &serde_json::Error) -> Self {
        ConvertError::Json {
            path: path.into(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }
    }

    /// A key of `path` that is absent or not what was expected.
    pub fn bad_key(
        path: impl Into<PathBuf>,
        key: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        ConvertError::BadKey {
            path: path.into(),
            key: key.into(),
            expected: expected.into(),
        }
    }
}
