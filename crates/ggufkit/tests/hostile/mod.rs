//! Test-side GGUF encoder and walker, independent of the library's own code.
//!
//! The encoder writes files byte by byte from the spec (`shared/spec/gguf.ksy.txt`), in either
//! byte order, and records where every field lands so tests can check diagnostics' offsets. The
//! walker touches every value, array element, string, typed view, tensor info and tensor byte of
//! whatever the library parsed, so tests and fuzzers exercise the accessors too.
#![allow(dead_code)]

use std::io::{self, Read};

use ggufkit::{Endian, GgmlType, Gguf, Value, ValueType};

// the corpus helpers live with the byte-level encoder (also for the CLI's tests, which include
// this module by path)
#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)]
pub use common::{gguf_files, sparse_file};

/// One metadata value as the test encoder sees it.
#[derive(Clone, Debug)]
pub enum V {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    /// The raw byte (0/1 in valid files).
    Bool(u8),
    Str(Vec<u8>),
    /// Element type id and elements (all of that type; nested arrays are `Arr` elements).
    Arr(u32, Vec<V>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl V {
    pub fn type_id(&self) -> u32 {
        match self {
            V::U8(_) => 0,
            V::I8(_) => 1,
            V::U16(_) => 2,
            V::I16(_) => 3,
            V::U32(_) => 4,
            V::I32(_) => 5,
            V::F32(_) => 6,
            V::Bool(_) => 7,
            V::Str(_) => 8,
            V::Arr(..) => 9,
            V::U64(_) => 10,
            V::I64(_) => 11,
            V::F64(_) => 12,
        }
    }

    pub fn str(s: &str) -> V {
        V::Str(s.as_bytes().to_vec())
    }
}

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
    /// A tensor of a supported type with `data` filled by a simple pattern.
    pub fn new(name: &str, dims: &[u64], ty: GgmlType) -> T {
        let n: u64 = dims.iter().product();
        let size = ty.bytes_for(n).expect("whole blocks") as usize;
        T {
            name: name.as_bytes().to_vec(),
            dims: dims.to_vec(),
            ty: ty.id(),
            data: (0..size).map(|i| (i * 7 + 3) as u8).collect(),
            offset: None,
        }
    }
}

/// A whole file to encode.
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

/// Where the encoder put things.
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
    /// Start of each tensor's data, from the start of the file.
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

pub struct Enc {
    pub out: Vec<u8>,
    pub e: Endian,
}

impl Enc {
    pub fn u32(&mut self, v: u32) {
        self.out.extend(match self.e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        })
    }
    pub fn u64(&mut self, v: u64) {
        self.out.extend(match self.e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        })
    }
    pub fn str(&mut self, s: &[u8]) {
        self.u64(s.len() as u64);
        self.out.extend_from_slice(s);
    }
    fn num<const N: usize>(&mut self, le: [u8; N], be: [u8; N]) {
        self.out.extend(match self.e {
            Endian::Little => le,
            Endian::Big => be,
        })
    }
    /// The value's bytes, without its type field.
    pub fn value(&mut self, v: &V) {
        match v {
            V::U8(x) => self.out.push(*x),
            V::I8(x) => self.out.push(*x as u8),
            V::Bool(x) => self.out.push(*x),
            V::U16(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::I16(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::U32(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::I32(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::F32(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::U64(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::I64(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::F64(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::Str(s) => self.str(s),
            V::Arr(t, items) => {
                self.u32(*t);
                self.u64(items.len() as u64);
                for it in items {
                    self.value(it);
                }
            }
        }
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
    /// Encodes the model; also says where everything went.
    pub fn encode_with_layout(&self) -> (Vec<u8>, Layout) {
        let mut w = Enc {
            out: b"GGUF".to_vec(),
            e: self.endian,
        };
        let mut lay = Layout::default();
        w.u32(self.version);
        w.u64(self.tensors.len() as u64);
        w.u64(self.kvs.len() as u64);
        for (k, v) in &self.kvs {
            lay.kv.push(w.out.len() as u64);
            w.str(k);
            w.u32(v.type_id());
            lay.kv_value.push(w.out.len() as u64);
            w.value(v);
        }
        let mut next = 0u64;
        let mut offsets = Vec::new();
        for t in &self.tensors {
            lay.tensor.push(w.out.len() as u64);
            w.str(&t.name);
            w.u32(t.dims.len() as u32);
            for d in &t.dims {
                w.u64(*d);
            }
            w.u32(t.ty);
            let off = t.offset.unwrap_or(next);
            offsets.push(off);
            w.u64(off);
            next = pad(off.saturating_add(data_size(t)), self.alignment);
        }
        if !self.tensors.is_empty() {
            let p = pad(w.out.len() as u64, self.alignment);
            w.out.resize(p as usize, 0);
        }
        lay.data_offset = w.out.len() as u64;
        for (i, t) in self.tensors.iter().enumerate() {
            let at = lay.data_offset.saturating_add(offsets[i]);
            lay.tensor_data.push(at);
            let end = at.saturating_add(t.data.len() as u64);
            if end > MAX_MATERIAL {
                continue;
            }
            if w.out.len() < end as usize {
                w.out.resize(end as usize, 0);
            }
            w.out[at as usize..end as usize].copy_from_slice(&t.data);
            let last = i + 1 == self.tensors.len();
            if !last || self.pad_last {
                let p = lay
                    .data_offset
                    .saturating_add(pad(offsets[i].saturating_add(data_size(t)), self.alignment));
                if p <= MAX_MATERIAL && w.out.len() < p as usize {
                    w.out.resize(p as usize, 0);
                }
            }
        }
        (w.out, lay)
    }

    pub fn encode(&self) -> Vec<u8> {
        self.encode_with_layout().0
    }
}

// ---- comparing what the library read with what was written -----------------------------------

/// Asserts that the library's value equals the encoded one (floats bit for bit).
pub fn assert_value_eq(want: &V, got: &Value<'_>, path: &str) {
    match (want, got) {
        (V::U8(a), Value::U8(b)) => assert_eq!(a, b, "{path}"),
        (V::I8(a), Value::I8(b)) => assert_eq!(a, b, "{path}"),
        (V::U16(a), Value::U16(b)) => assert_eq!(a, b, "{path}"),
        (V::I16(a), Value::I16(b)) => assert_eq!(a, b, "{path}"),
        (V::U32(a), Value::U32(b)) => assert_eq!(a, b, "{path}"),
        (V::I32(a), Value::I32(b)) => assert_eq!(a, b, "{path}"),
        (V::U64(a), Value::U64(b)) => assert_eq!(a, b, "{path}"),
        (V::I64(a), Value::I64(b)) => assert_eq!(a, b, "{path}"),
        (V::F32(a), Value::F32(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{path}"),
        (V::F64(a), Value::F64(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{path}"),
        (V::Bool(a), Value::Bool(b)) => assert_eq!(a, b, "{path}"),
        (V::Str(a), Value::String(b)) => assert_eq!(a.as_slice(), b.as_bytes(), "{path}"),
        (V::Arr(t, items), Value::Array(a)) => {
            assert_eq!(a.element_type().id(), *t, "{path}: element type");
            assert_eq!(a.len(), items.len() as u64, "{path}: length");
            let got: Vec<Value<'_>> = a.iter().collect();
            assert_eq!(got.len(), items.len(), "{path}: iterated length");
            for (i, (w, g)) in items.iter().zip(&got).enumerate() {
                assert_value_eq(w, g, &format!("{path}[{i}]"));
                // O(1) / walking access agrees with iteration
                let by_index = a.get(i as u64).expect("get(i)");
                assert_value_eq(w, &by_index, &format!("{path}.get({i})"));
            }
            if let Some(strs) = a.strings() {
                let strs: Vec<_> = strs.collect();
                assert_eq!(strs.len(), items.len(), "{path}: strings()");
                for (w, g) in items.iter().zip(&strs) {
                    match w {
                        V::Str(s) => assert_eq!(s.as_slice(), g.as_bytes(), "{path}"),
                        other => panic!("{path}: string array holds {other:?}"),
                    }
                }
            }
        }
        (w, g) => panic!("{path}: wrote {w:?}, read {g:?}"),
    }
}

/// Asserts that a parsed file holds exactly the model.
pub fn assert_model_eq(m: &Model, g: &Gguf<'_>, bytes: &[u8]) {
    assert_eq!(g.version(), m.version);
    assert_eq!(g.endian(), m.endian);
    assert_eq!(u64::from(g.alignment()), m.alignment);
    assert_eq!(g.kv_count(), m.kvs.len());
    for (i, ((k, v), kv)) in m.kvs.iter().zip(g.metadata()).enumerate() {
        assert_eq!(kv.key.as_bytes(), k.as_slice(), "key {i}");
        assert_value_eq(v, &kv.value, &format!("kv {i}"));
        if let Ok(key) = std::str::from_utf8(k) {
            let by_key = g.get(key).expect("lookup by key");
            assert_value_eq(v, &by_key, &format!("get({key:?})"));
        }
    }
    assert_eq!(g.tensor_count(), m.tensors.len());
    let (_, lay) = m.encode_with_layout();
    assert_eq!(g.data_offset(), lay.data_offset);
    for (i, (t, ti)) in m.tensors.iter().zip(g.tensors()).enumerate() {
        assert_eq!(ti.name_bytes(), t.name.as_slice(), "tensor {i}");
        assert_eq!(ti.shape(), t.dims.as_slice(), "tensor {i}");
        assert_eq!(ti.ggml_type().id(), t.ty, "tensor {i}");
        assert_eq!(ti.absolute_offset(), lay.tensor_data[i], "tensor {i}");
        if let Some(d) = ti.data() {
            assert_eq!(d, t.data.as_slice(), "tensor {i} data");
            let at = lay.tensor_data[i] as usize;
            assert_eq!(&bytes[at..at + d.len()], d);
        }
        if let Ok(name) = std::str::from_utf8(&t.name) {
            assert!(g.tensor(name).is_some(), "tensor({name:?})");
        }
    }
}

// ---- walking everything that parsed -----------------------------------------------------------

/// Touches every value (nested arrays, strings, typed views) and every tensor of a parsed file;
/// returns a checksum so nothing is optimised away.
pub fn walk(g: &Gguf<'_>) -> u64 {
    let mut sum = 0u64;
    sum ^= u64::from(g.version()) ^ u64::from(g.alignment()) ^ g.data_offset() ^ g.expected_len();
    let _ = (
        g.architecture(),
        g.model_name(),
        g.context_length(),
        g.head_count(),
    );
    let _ = (g.embedding_length(), g.block_count(), g.head_count_kv());
    for (i, kv) in g.metadata().enumerate() {
        sum = sum
            .wrapping_add(kv.offset)
            .wrapping_add(kv.raw.len() as u64);
        let key = kv.key();
        sum = sum.wrapping_add(key.len() as u64);
        let again = g.kv_at(i).expect("kv_at");
        assert_eq!(again.offset, kv.offset);
        let _ = g.get(&key);
        sum = sum.wrapping_add(walk_value(&kv.value));
    }
    for (i, t) in g.tensors().enumerate() {
        let _ = g.tensor_at(i).expect("tensor_at");
        let _ = g.tensor(&t.name());
        sum = sum
            .wrapping_add(t.n_elements())
            .wrapping_add(t.size())
            .wrapping_add(t.row_size())
            .wrapping_add(t.absolute_offset())
            .wrapping_add(t.info_offset());
        assert_eq!(t.shape().len(), t.n_dims() as usize);
        let _ = t.ne();
        if let Some(d) = t.data() {
            assert_eq!(d.len() as u64, t.size());
            sum = sum.wrapping_add(d.iter().map(|&b| u64::from(b)).sum::<u64>());
        }
    }
    let _ = (
        g.tensor_data_size(),
        g.parameter_count(),
        g.header_bytes().len(),
    );
    sum
}

pub fn walk_value(v: &Value<'_>) -> u64 {
    // Iterative: nesting is as deep as the bytes allow (12 bytes a level).
    let mut sum = 0u64;
    let mut stack = vec![*v];
    while let Some(v) = stack.pop() {
        let _ = (v.as_u64(), v.as_i64(), v.as_f64(), v.as_bool(), v.as_str());
        match v {
            Value::String(s) => {
                sum = sum.wrapping_add(s.len() as u64);
                let _ = s.to_string_lossy();
            }
            Value::Array(a) => {
                sum = sum.wrapping_add(a.len());
                let mut n = 0u64;
                for e in a.iter() {
                    match e {
                        Value::Array(_) => stack.push(e),
                        other => {
                            let _ = (other.as_u64(), other.as_f64(), other.as_str());
                        }
                    }
                    n += 1;
                }
                assert_eq!(n, a.len(), "array iteration stops early");
                if !a.is_empty() && a.element_type() != ValueType::Array {
                    let _ = a.get(a.len() - 1);
                    let _ = a.get(0);
                }
                let _ = a.get(a.len());
                if let Some(it) = a.strings() {
                    sum = sum.wrapping_add(it.count() as u64);
                }
                sum = sum.wrapping_add(typed_views(&a));
            }
            _ => {}
        }
    }
    sum
}

fn typed_views(a: &ggufkit::ArrayView<'_>) -> u64 {
    fn one<T: ggufkit::value::Scalar>(a: &ggufkit::ArrayView<'_>) -> u64 {
        match a.typed::<T>() {
            Some(t) => {
                assert_eq!(t.len() as u64, a.len());
                let n = t.iter().count() as u64;
                let _ = t.as_slice();
                let _ = t.get(t.len());
                if !t.is_empty() {
                    let _ = t.get(t.len() - 1);
                }
                n + t.to_vec().len() as u64
            }
            None => 0,
        }
    }
    one::<u8>(a)
        + one::<i8>(a)
        + one::<u16>(a)
        + one::<i16>(a)
        + one::<u32>(a)
        + one::<i32>(a)
        + one::<f32>(a)
        + one::<u64>(a)
        + one::<i64>(a)
        + one::<f64>(a)
}

// ---- sources -----------------------------------------------------------------------------------

/// A reader that hands out its bytes in chunks of the given sizes (cycled), like a slow socket.
pub struct Chunked<'a> {
    pub data: &'a [u8],
    pub pos: usize,
    pub sizes: Vec<usize>,
    pub k: usize,
}

impl<'a> Chunked<'a> {
    pub fn new(data: &'a [u8], sizes: Vec<usize>) -> Self {
        let sizes = if sizes.is_empty() { vec![1] } else { sizes };
        Chunked {
            data,
            pos: 0,
            sizes,
            k: 0,
        }
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.k % self.sizes.len()].max(1);
        self.k += 1;
        let n = want.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Checks that the stream reader agrees with the slice parser on `bytes`.
pub fn check_stream_agrees(bytes: &[u8], sizes: Vec<usize>) {
    let slice = Gguf::from_bytes(bytes);
    let stream = Gguf::read_header(Chunked::new(bytes, sizes));
    match (&slice, &stream) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.header_bytes(), b.header_bytes());
            assert_eq!(a.kv_count(), b.kv_count());
            assert_eq!(a.tensor_count(), b.tensor_count());
            assert_eq!(a.data_offset(), b.data_offset());
            assert_eq!(a.expected_len(), b.expected_len());
            assert!(b.tensors().all(|t| t.data().is_none()));
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.rule(), b.rule(), "{a} vs {b}");
            assert_eq!(a.offset(), b.offset(), "{a} vs {b}");
        }
        (Err(a), Ok(b)) => {
            // only what lies past the header (tensor data, trailing bytes) can differ
            assert_eq!(a.rule(), Some(ggufkit::Rule::Truncated), "{a}");
            assert!(a.offset().unwrap() >= b.data_offset(), "{a}");
        }
        (Ok(_), Err(b)) => panic!("slice parses, stream fails: {b}"),
    }
}

/// A file with one key whose value is `depth` arrays nested in each other around one u8.
pub fn deep_nesting(depth: usize) -> Vec<u8> {
    let mut b = b"GGUF\x03\0\0\0".to_vec();
    b.extend(0u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend(4u64.to_le_bytes());
    b.extend(b"deep");
    b.extend(9u32.to_le_bytes());
    for _ in 0..depth {
        b.extend(9u32.to_le_bytes());
        b.extend(1u64.to_le_bytes());
    }
    b.extend(0u32.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.push(7);
    b
}

/// Value types in id order, for generators.
pub fn value_type(id: u32) -> ValueType {
    ValueType::from_id(id).expect("0..=12")
}
