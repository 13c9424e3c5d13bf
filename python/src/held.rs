//! What every object of an opened file holds: the parsed file and its bytes (a map, a buffer, or
//! a remote header), shared by reference count. The file, its tensors, its arrays and every
//! numpy view keep one reference; `File.close()` drops the file's own, and the map goes when the
//! last view does, so nothing is ever unmapped under a borrower.

use std::sync::Arc;

use ggufkit::remote::RemoteGguf;
use ggufkit::{Gguf, Opened};
use numpy::ndarray::ArrayView1;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Where the parsed file came from.
pub enum Source {
    /// A location the library opened (`ggufkit::open`): a local file, mapped, or a remote object,
    /// whose header is held and whose tensor data is fetched on demand.
    Opened(Opened),
    /// A buffer handed over.
    Bytes(Gguf<'static>),
}

/// An opened file and the name its errors carry.
pub struct Held {
    pub source: Source,
    /// The path or URL as given (`<bytes>` for a buffer): what error messages name.
    pub name: String,
}

impl Held {
    /// The parsed file.
    pub fn gguf(&self) -> &Gguf<'static> {
        match &self.source {
            Source::Opened(o) => o.gguf(),
            Source::Bytes(g) => g,
        }
    }

    /// What reading the file cost so far (`ggufkit::Opened::cost`: the header, then the tensor
    /// data fetched): `None` for a local file (mapped) and a buffer.
    pub fn cost(&self) -> Option<ggufkit::ReadCost> {
        match &self.source {
            Source::Opened(o) => o.cost(),
            Source::Bytes(_) => None,
        }
    }

    /// The remote object, when the file is one.
    pub fn remote(&self) -> Option<&RemoteGguf> {
        match &self.source {
            Source::Opened(o) => o.remote(),
            Source::Bytes(_) => None,
        }
    }
}

/// The owner of the memory behind a borrowed numpy array: the array's `base`.
#[pyclass(frozen, module = "ggufkit._native")]
pub struct Keep {
    #[allow(dead_code)] // held for its reference, never read
    held: Arc<Held>,
}

/// A read-only `uint8` numpy array over `bytes`, which lie in `held`'s storage, kept alive by the
/// array. No copy.
pub fn borrow_bytes<'py>(
    py: Python<'py>,
    held: &Arc<Held>,
    bytes: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    let keep = Bound::new(py, Keep { held: held.clone() })?.into_any();
    let view = ArrayView1::from(bytes);
    // SAFETY: `bytes` borrow from the storage of `held` (a read-only map, or a buffer the parsed
    // file owns and never changes), which does not move or change while an `Arc<Held>` lives;
    // `keep` holds one and becomes the array's base, so the memory outlives the array. The array
    // is made read-only before anything else sees it, so it is never written through.
    let array = unsafe { PyArray1::<u8>::borrow_from_array(&view, keep) };
    let array = array.into_any();
    read_only(&array)?;
    Ok(array)
}

/// Clears the array's WRITEABLE flag.
pub fn read_only(array: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = array.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("write", false)?;
    array.call_method("setflags", (), Some(&kwargs))?;
    Ok(())
}
