//! Remote locations that cannot be read as asked (the transfers themselves fail as
//! [`Error::Io`](super::Error::Io), with the URL).
#![forbid(unsafe_code)]

/// Why a remote read was refused ([`Error::Remote`](super::Error::Remote)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RemoteError {
    /// The URL does not name an object this crate can read.
    #[error("opening the location: {problem}")]
    Location {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        problem: LocationProblem,
    },
    /// A tensor whose data the header places beyond the end of the object.
    #[error(
        "the data of tensor '{name}' ({size} bytes from byte {start}) runs past the end of the {object_size}-byte object"
    )]
    TensorPastEnd {
        /// The tensor.
        name: String,
        /// Where its data starts, from the start of the object.
        start: u64,
        /// Its size in bytes.
        size: u64,
        /// The object's length.
        object_size: u64,
    },
    /// One of the threads reading shards' headers panicked.
    #[error("a shard reader panicked")]
    ShardReaderPanicked,
}

/// What is wrong with a remote URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocationProblem {
    /// It does not parse as a URL.
    #[error("not a valid URL: {0}")]
    Url(String),
    /// Its path is not a valid object path.
    #[error("not a valid object path: {0}")]
    ObjectPath(String),
    /// Its path is empty.
    #[error("the URL names no object (its path is empty)")]
    NoObject,
    /// A scheme other than `http(s)`, `s3`, `gs` or `az`.
    #[error("unsupported URL scheme '{0}'")]
    Scheme(String),
    /// The object store refused its settings (credentials, endpoint, options).
    #[error("{0}")]
    Store(String),
    /// This build of the library reads no remote locations (its `remote` feature is off).
    #[error("this build reads local files only (ggufkit's feature `remote` is off)")]
    NotBuiltIn,
}
