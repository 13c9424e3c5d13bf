//! `HeaderReader`: a header read in rounds ([`ggufkit::open::HeaderRounds`]) from bytes the
//! package's JavaScript fetches: `nextRange()` names the bytes the parser needs next (the remote
//! reader's rule: a first chunk, then as far as the parser guesses the header goes, at least
//! doubling), `push()` hands them over, and once `nextRange()` is `undefined`, `open()` gives the
//! [`GgufFile`], `validateText()` the verdicts and `layoutText()` the byte layout. A `Uint8Array`
//! is read the same way, synchronously ([`GgufFile::from_bytes`]): only its header is copied into
//! WebAssembly memory.
#![forbid(unsafe_code)]

use ggufkit::location::ReadCost;
use ggufkit::open::HeaderRounds;
use ggufkit::read::ReadOptions;
use ggufkit::render::layout::layout_json;
use ggufkit::render::validation::validation_json;
use wasm_bindgen::prelude::*;

use crate::error::{gguf_error, other_error};
use crate::file::GgufFile;

/// The first range asked for: the remote reader's first chunk (1 MiB: a 32k-token vocabulary's
/// whole header in one read, and enough of a larger one to guess where it ends).
pub const FIRST_CHUNK: u64 = 1 << 20;

/// `FIRST_CHUNK` for the package's JavaScript, whose first request to a URL learns the
/// object's length before a reader can be made.
#[wasm_bindgen(js_name = firstChunk)]
pub fn first_chunk() -> f64 {
    FIRST_CHUNK as f64
}

/// The largest range the package reads at once. A hostile header can declare a string of
/// gigabytes inside a file that long; WebAssembly's memory (4 GiB at most) could not hold it, so
/// it is refused with an error instead of a failed allocation, which would be a trap.
pub const MAX_HEADER: u64 = 1 << 30;

/// A header being read in rounds (see the module documentation).
#[wasm_bindgen]
pub struct HeaderReader {
    rounds: HeaderRounds,
    name: String,
    /// What the reads cost: requests and bytes, reported by the fetching code (`remote` member
    /// of the JSON of a file read from a URL, as the CLI's).
    cost: Option<ReadCost>,
}

#[wasm_bindgen]
impl HeaderReader {
    /// A reader of an object `total` bytes long named `name` (a file name, a URL); `permissive`
    /// opens files that break rules which leave them readable, as `gguf`'s read-only commands do.
    #[wasm_bindgen(constructor)]
    pub fn new(total: f64, name: String, permissive: bool) -> Result<HeaderReader, JsValue> {
        let total = length(total)
            .ok_or_else(|| other_error(&name, &format!("{total} is not a length in bytes")))?;
        Ok(HeaderReader {
            rounds: HeaderRounds::new(total, FIRST_CHUNK, &ReadOptions { permissive }),
            name,
            cost: None,
        })
    }

    /// The range `[start, end]` to fetch next (end exclusive), or `undefined` when the bytes held
    /// are all the parser needs. A GgufError when the range is beyond what WebAssembly can hold.
    #[wasm_bindgen(js_name = nextRange)]
    pub fn next_range(&mut self) -> Result<Option<Vec<f64>>, JsValue> {
        let Some(r) = self.rounds.next_range() else {
            return Ok(None);
        };
        if r.end > MAX_HEADER {
            return Err(other_error(
                &self.name,
                &format!(
                    "the header goes past byte {} (the parser asks for bytes {}..{}), beyond the \
                     {MAX_HEADER} bytes a header may take in WebAssembly",
                    MAX_HEADER, r.start, r.end
                ),
            ));
        }
        Ok(Some(vec![r.start as f64, r.end as f64]))
    }

    /// Appends fetched bytes (those of the range `nextRange()` named).
    pub fn push(&mut self, bytes: &[u8]) {
        self.rounds.push(bytes);
    }

    /// Bytes held so far.
    #[wasm_bindgen(getter)]
    pub fn held(&self) -> f64 {
        self.rounds.held().len() as f64
    }

    /// Records what the reads cost (for a URL: the `remote` member of the JSON outputs).
    #[wasm_bindgen(js_name = setCost)]
    pub fn set_cost(&mut self, requests: f64, bytes: f64) {
        self.cost = Some(ReadCost {
            requests: requests as u64,
            bytes: bytes as u64,
        });
    }

    /// `gguf validate --json`'s line for this object: both verdicts, every finding.
    #[wasm_bindgen(js_name = validateText)]
    pub fn validate_text(&self) -> String {
        validation_json(&self.name, &self.rounds.report(), self.cost)
    }

    /// `gguf layout --json`'s array: every field of the header with its offset and length.
    #[wasm_bindgen(js_name = layoutText)]
    pub fn layout_text(&self) -> String {
        layout_json(&self.rounds.layout().fields)
    }

    /// The file (a GgufError at the first broken rule that stops it opening).
    pub fn open(self) -> Result<GgufFile, JsValue> {
        let HeaderReader { rounds, name, cost } = self;
        let total = rounds.total();
        let gguf = rounds.gguf().map_err(|e| gguf_error(&name, &e))?;
        Ok(GgufFile::new(gguf, name, total, cost))
    }
}

/// A JavaScript number as a length in bytes: a whole number from 0 to 2^53.
pub(crate) fn length(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_992.0)
        .then_some(n as u64)
}
