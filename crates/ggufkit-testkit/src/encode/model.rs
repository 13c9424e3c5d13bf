//! A whole file to encode: its values, tensors, alignment and byte order, laid out as the spec
//! says (or as a test overrides), with a record of where every field went.
#![forbid(unsafe_code)]

use std::path::Path;

use ggufkit::{Endian, GgmlType};

use super::{Encoder, V};

/// One tensor: name, dims (as stored), type id, data bytes; offset computed unless overridden.
#[derive(Clone, Debug)]
pub struct T {
    pub name: Vec<u8>,
    pub dims: Vec<u64>,
    pub ty: u32,
    pub data: Vec<u8>,
    pub offset: Option<u64>,
}

impl T {
    /// A tensor of a supported type with its data filled by a simple pattern.
    pub fn new(name: &str, dims: &[u64], ty: GgmlType) -> T {
        let n: u64 = dims.iter().product();
        let size = ty.bytes_for(n).expect("whole blocks") as usize;
        T::raw(name, dims, ty.id(), super::pattern(size))
    }

    /// An f32 tensor holding `values` (little-endian).
    pub fn f32(name: &str, dims: &[u64], values: &[f32]) -> T {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        T::raw(name, dims, GgmlType::F32.id(), data)
    }

    /// A tensor of any type id with these data bytes.
    pub fn raw(name: &str, dims: &[u64], ty: u32, data: Vec<u8>) -> T {
        T {
            name: name.as_bytes().to_vec(),
            dims: dims.to_vec(),
            ty,
            data,
            offset: None,
        }
    }
}

/// A whole file to encode. Fields are public so tests can describe a defect; the methods
/// `kv`, `tensor`, `f32` and `raw` build one step at a time.
#[derive(Clone, Debug)]
pub struct Model {
    pub version: u32,
    pub endian: Endian,
    pub kvs: Vec<(Vec<u8>, V)>,
    pub tensors: Vec<T>,
    /// Alignment used to lay out tensor data. Add a `general.alignment` kv to match when not 32.
    pub alignment: u64,
    /// Pad the data section after the last tensor too (ggml's writer does).
    pub pad_last: bool,
}

impl Default for Model {
    /// Version 3, little-endian, alignment 32, nothing in it.
    fn default() -> Self {
        Model {
            version: 3,
            endian: Endian::Little,
            kvs: Vec::new(),
            tensors: Vec::new(),
            alignment: 32,
            pad_last: true,
        }
    }
}

/// Where the encoder put things, as offsets from the start of the file.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Start of each key-value pair (its key length field).
    pub kv: Vec<u64>,
    /// Start of each value (after the type field).
    pub kv_value: Vec<u64>,
    /// Start of each tensor info (its name length field).
    pub tensor: Vec<u64>,
    /// Start of the data section.
    pub data_offset: u64,
    /// Start of each tensor's data.
    pub tensor_data: Vec<u64>,
}

impl Layout {
    /// Offset of tensor `i`'s n_dims field (name length known from the model).
    pub fn n_dims(&self, m: &Model, i: usize) -> u64 {
        self.tensor[i] + 8 + m.tensors[i].name.len() as u64
    }

    /// Offset of dim `d` of tensor `i`.
    pub fn dim(&self, m: &Model, i: usize, d: usize) -> u64 {
        self.n_dims(m, i) + 4 + 8 * d as u64
    }

    /// Offset of the type field of tensor `i`.
    pub fn ty(&self, m: &Model, i: usize) -> u64 {
        self.n_dims(m, i) + 4 + 8 * m.tensors[i].dims.len() as u64
    }

    /// Offset of the offset field of tensor `i`.
    pub fn offset(&self, m: &Model, i: usize) -> u64 {
        self.ty(m, i) + 4
    }
}

/// Size in bytes of tensor `t`'s data per the type table (falls back to `data.len()` for types
/// the table cannot size, which only malformed tests use).
fn data_size(t: &T) -> u64 {
    let n = t.dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    n.and_then(|n| GgmlType::from_id(t.ty)?.bytes_for(n))
        .unwrap_or(t.data.len() as u64)
}

/// `n` rounded up to `a`, saturating (malformed tests lay out sizes past u64).
fn pad(n: u64, a: u64) -> u64 {
    n.div_ceil(a).saturating_mul(a)
}

/// Largest data section the encoder materialises; beyond it tensors are described, not stored.
const MAX_MATERIAL: u64 = 1 << 24;

impl Model {
    /// An empty version 3 little-endian file (the same as `Model::default()`).
    pub fn new() -> Self {
        Model::default()
    }

    /// Adds the pair `key` = `v`.
    pub fn kv(mut self, key: &str, v: V) -> Self {
        self.kvs.push((key.as_bytes().to_vec(), v));
        self
    }

    /// Adds a tensor.
    pub fn tensor(mut self, t: T) -> Self {
        self.tensors.push(t);
        self
    }

    /// Adds an f32 tensor holding `values` (shape ne0 first).
    pub fn f32(self, name: &str, shape: &[u64], values: &[f32]) -> Self {
        self.tensor(T::f32(name, shape, values))
    }

    /// Adds a tensor of any type id with these data bytes.
    pub fn raw(self, name: &str, shape: &[u64], ty: u32, data: Vec<u8>) -> Self {
        self.tensor(T::raw(name, shape, ty, data))
    }

    /// Encodes the model; also says where everything went.
    pub fn encode_with_layout(&self) -> (Vec<u8>, Layout) {
        let mut w = Encoder::header_in(
            self.endian,
            self.version,
            self.tensors.len() as u64,
            self.kvs.len() as u64,
        );
        let mut lay = Layout::default();
        for (k, v) in &self.kvs {
            lay.kv.push(w.pos());
            w.key(k, v.type_id());
            lay.kv_value.push(w.pos());
            w.value(v);
        }
        let mut next = 0u64;
        let mut offsets = Vec::new();
        for t in &self.tensors {
            lay.tensor.push(w.pos());
            let off = t.offset.unwrap_or(next);
            offsets.push(off);
            w.tensor(&t.name, &t.dims, t.ty, off);
            next = pad(off.saturating_add(data_size(t)), self.alignment);
        }
        let mut out = w.bytes;
        if !self.tensors.is_empty() {
            let p = pad(out.len() as u64, self.alignment);
            out.resize(p as usize, 0);
        }
        lay.data_offset = out.len() as u64;
        for (i, t) in self.tensors.iter().enumerate() {
            let at = lay.data_offset.saturating_add(offsets[i]);
            lay.tensor_data.push(at);
            let end = at.saturating_add(t.data.len() as u64);
            if end > MAX_MATERIAL {
                continue;
            }
            if out.len() < end as usize {
                out.resize(end as usize, 0);
            }
            out[at as usize..end as usize].copy_from_slice(&t.data);
            let last = i + 1 == self.tensors.len();
            if !last || self.pad_last {
                let p = lay
                    .data_offset
                    .saturating_add(pad(offsets[i].saturating_add(data_size(t)), self.alignment));
                if p <= MAX_MATERIAL && out.len() < p as usize {
                    out.resize(p as usize, 0);
                }
            }
        }
        (out, lay)
    }

    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.encode_with_layout().0
    }

    /// Writes the file into `dir` and returns its name.
    pub fn write(&self, dir: &Path, name: &str) -> String {
        std::fs::write(dir.join(name), self.encode()).expect("write fixture");
        name.to_string()
    }
}
