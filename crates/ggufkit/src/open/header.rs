//! The bytes a byte layout is drawn from ([`header_bytes`]): a local file mapped whole, or a
//! remote object's header fetched as far as the parser reads it, with the object's length.
#![forbid(unsafe_code)]

use super::OpenError;
use crate::layout::ByteLayout;
use crate::location::{Location, ReadCost};
use crate::read::MappedFile;

/// The bytes of a file as far as a byte layout needs them.
pub struct HeaderBytes {
    bytes: Bytes,
    cost: Option<ReadCost>,
}

enum Bytes {
    /// A local file, every byte.
    Mapped(MappedFile),
    /// A remote object's first bytes (its header), and the object's length.
    #[cfg(feature = "remote")]
    Fetched { prefix: Vec<u8>, total: u64 },
}

/// The bytes of the file at `location` a byte layout is drawn from: a local file mapped (an empty
/// file gives none), a remote object's header by range requests (remote options from the
/// environment).
pub fn header_bytes(location: &Location) -> Result<HeaderBytes, OpenError> {
    let read = match location {
        Location::Path(p) => MappedFile::open(p).map(|m| HeaderBytes {
            bytes: Bytes::Mapped(m),
            cost: None,
        }),
        Location::Url(url) => fetch(url),
    };
    read.map_err(OpenError::at(location))
}

#[cfg(feature = "remote")]
fn fetch(url: &str) -> crate::Result<HeaderBytes> {
    let opts = crate::remote::RemoteOptions::from_env();
    let (prefix, total, cost) = crate::remote::header_prefix(url, &opts)?;
    Ok(HeaderBytes {
        bytes: Bytes::Fetched { prefix, total },
        cost: Some(cost),
    })
}

#[cfg(not(feature = "remote"))]
fn fetch(url: &str) -> crate::Result<HeaderBytes> {
    Err(super::no_remote(url))
}

impl HeaderBytes {
    /// The byte layout: every field with its offset, length and value; the tensor data fields
    /// from the header's offsets and the file's length.
    pub fn layout(&self) -> ByteLayout<'_> {
        match &self.bytes {
            Bytes::Mapped(m) => ByteLayout::of(m.bytes()),
            #[cfg(feature = "remote")]
            Bytes::Fetched { prefix, total } => ByteLayout::of_prefix(prefix, *total),
        }
    }

    /// What fetching them cost: `None` for a local file.
    pub fn cost(&self) -> Option<ReadCost> {
        self.cost
    }
}
