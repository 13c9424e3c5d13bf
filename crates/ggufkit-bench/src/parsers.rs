//! The parsers compared, each opening a file the way its users do and fully walking it.
//!
//! "Fully walking" means visiting every key, every array element (strings as checked text,
//! numbers decoded) and every tensor info (name, type, dims, offset). Each walker returns the same
//! [`Stats`], so a parser that skipped something (or saw something else) shows up as a mismatch
//! against ggufkit's walk instead of as a suspiciously fast time.
//!
//! How each parser gets its bytes, as its own documentation and its users do it:
//! - ggufkit: [`ggufkit::Gguf::open`] (a memory map).
//! - ggus: a memory map of the file (memmap2) given to `GGuf::new` (it parses a slice only).
//! - candle: `Content::read` over a `BufReader<File>` (candle reads through `Read + Seek`; a bare
//!   `File` would cost one system call per field, which would measure the kernel, not candle).
//! - gguf-rs-lib: its `open_gguf_file` (a `BufReader<File>`), default configuration.
//! - the floors: reading the header bytes into a `Vec`, and mapping the file and summing every
//!   byte of the header once.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use ggufkit::{ArrayView, Gguf, Value, ValueType};
use serde::{Deserialize, Serialize};

/// What a walk saw. Parsers that walked the same file completely agree on every field but
/// `string_bytes` (candle drops trailing NULs and replaces invalid UTF-8) and `sink`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Key-value pairs.
    pub keys: u64,
    /// Values visited: each scalar, and each element of each array (leaves of nested arrays).
    pub values: u64,
    /// Of those, strings.
    pub strings: u64,
    /// Bytes of those strings.
    pub string_bytes: u64,
    /// Tensor infos.
    pub tensors: u64,
    /// Sum of every dimension of every tensor.
    pub dims: u64,
    /// A checksum of the decoded numbers, so no decoding is optimised away (parser-specific).
    #[serde(skip)]
    pub sink: u64,
}

impl Stats {
    /// True when two walks visited the same things (keys, values, strings, tensors, dims).
    pub fn same_walk(&self, o: &Stats) -> bool {
        (
            self.keys,
            self.values,
            self.strings,
            self.tensors,
            self.dims,
        ) == (o.keys, o.values, o.strings, o.tensors, o.dims)
    }

    #[inline]
    fn num(&mut self, bits: u64) {
        self.values += 1;
        self.sink = self.sink.wrapping_add(bits);
    }

    #[inline]
    fn string(&mut self, s: &str) {
        self.values += 1;
        self.strings += 1;
        self.string_bytes += s.len() as u64;
    }
}

/// The tensor infos of a file counted in plain locals (registers), the same for every parser.
#[derive(Default)]
struct TensorCount {
    tensors: u64,
    dims: u64,
    sink: u64,
}

impl TensorCount {
    #[inline]
    fn add<I: IntoIterator<Item = u64>>(&mut self, name: &str, dims: I, ty: u64, offset: u64) {
        self.tensors += 1;
        for d in dims {
            self.dims = self.dims.wrapping_add(d);
        }
        self.sink = self
            .sink
            .wrapping_add(name.len() as u64)
            .wrapping_add(ty)
            .wrapping_add(offset);
    }

    fn into(self, st: &mut Stats) {
        st.tensors += self.tensors;
        st.dims = st.dims.wrapping_add(self.dims);
        st.sink = st.sink.wrapping_add(self.sink);
    }
}

/// The strings of one array counted in plain locals (registers), as [`Stats::string`] would:
/// the same harness cost for every parser's string arrays, and a small one.
#[derive(Default)]
struct StringCount {
    text: u64,
    other: u64,
    bytes: u64,
}

impl StringCount {
    #[inline]
    fn add(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.text += 1;
                self.bytes += s.len() as u64;
            }
            None => self.other += 1,
        }
    }

    fn into(self, st: &mut Stats) {
        st.values += self.text + self.other;
        st.strings += self.text;
        st.string_bytes += self.bytes;
    }
}

/// The numbers of one array counted in plain locals, as [`Stats::num`] would.
#[derive(Default)]
struct NumCount {
    n: u64,
    sink: u64,
}

impl NumCount {
    fn of(it: impl Iterator<Item = u64>) -> NumCount {
        let mut c = NumCount::default();
        for x in it {
            c.add(x);
        }
        c
    }

    #[inline]
    fn add(&mut self, bits: u64) {
        self.n += 1;
        self.sink = self.sink.wrapping_add(bits);
    }

    fn into(self, st: &mut Stats) {
        st.values += self.n;
        st.sink = st.sink.wrapping_add(self.sink);
    }
}

/// A parser measured in process (the Rust ones and the two floors). gguf-py runs in a Python
/// subprocess and is handled by the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Parser {
    Ggufkit,
    /// ggufkit opening (and so validating) the file without walking it: what an engine pays
    /// before it reads a value.
    GgufkitOpen,
    Ggus,
    Candle,
    GgufRsLib,
    /// Reading the header bytes into memory.
    FloorRead,
    /// Mapping the file and one pass over the header bytes.
    FloorMap,
}

impl Parser {
    /// Every in-process parser, in the order of the tables.
    pub const ALL: [Parser; 7] = [
        Parser::Ggufkit,
        Parser::GgufkitOpen,
        Parser::Ggus,
        Parser::Candle,
        Parser::GgufRsLib,
        Parser::FloorRead,
        Parser::FloorMap,
    ];

    /// The name on the command line and in the tables.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Ggufkit => "ggufkit",
            Parser::GgufkitOpen => "ggufkit-open",
            Parser::Ggus => "ggus",
            Parser::Candle => "candle",
            Parser::GgufRsLib => "gguf-rs-lib",
            Parser::FloorRead => "floor-read",
            Parser::FloorMap => "floor-map",
        }
    }

    /// The parser with this name.
    pub fn from_name(s: &str) -> Option<Parser> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }

    /// True for the columns that do not walk the header (its values are not compared).
    pub fn walks(self) -> bool {
        !self.is_floor() && self != Parser::GgufkitOpen
    }

    /// True for the floors (not parsers: they only read or touch the header bytes).
    pub fn is_floor(self) -> bool {
        matches!(self, Parser::FloorRead | Parser::FloorMap)
    }

    /// The crate and version measured.
    pub fn version(self) -> &'static str {
        match self {
            Parser::Ggufkit => concat!("ggufkit ", env!("CARGO_PKG_VERSION"), " (this tree)"),
            Parser::GgufkitOpen => "ggufkit, opening only: every rule checked, no value walked",
            Parser::Ggus => "ggus 0.5.1",
            Parser::Candle => "candle-core 0.11.1 (quantized::gguf_file)",
            Parser::GgufRsLib => "gguf-rs-lib 0.3.3",
            Parser::FloorRead => "std::fs::File::read_exact of the header bytes",
            Parser::FloorMap => "memmap2 map + one pass summing every header byte",
        }
    }

    /// Opens `path` and fully walks it. `header_len` (bytes from the magic to the tensor data)
    /// is used by the floors only.
    pub fn run(self, path: &Path, header_len: u64) -> Result<Stats, String> {
        match self {
            Parser::Ggufkit => run_ggufkit(path),
            Parser::GgufkitOpen => run_ggufkit_open(path),
            Parser::Ggus => run_ggus(path),
            Parser::Candle => run_candle(path),
            Parser::GgufRsLib => run_gguf_rs_lib(path),
            Parser::FloorRead => floor_read(path, header_len),
            Parser::FloorMap => floor_map(path, header_len),
        }
    }

    /// [`Parser::run`] with panics caught and reported as errors.
    pub fn run_catching(self, path: &Path, header_len: u64) -> Result<Stats, String> {
        match std::panic::catch_unwind(|| self.run(path, header_len)) {
            Ok(r) => r,
            Err(p) => Err(format!("panicked: {}", panic_message(&*p))),
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Bytes from the magic to the start of tensor data, as ggufkit finds them (permissively, so a
/// file ggufkit rejects still gets a length); the whole file when even that fails.
pub fn header_len(path: &Path) -> u64 {
    let opts = ggufkit::ReadOptions::permissive();
    match Gguf::open_with(path, &opts) {
        Ok(g) => g.data_offset(),
        Err(_) => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

// ---- ggufkit -------------------------------------------------------------------------------

fn run_ggufkit(path: &Path) -> Result<Stats, String> {
    let g = Gguf::open(path).map_err(|e| e.to_string())?;
    Ok(walk_ggufkit(&g))
}

fn run_ggufkit_open(path: &Path) -> Result<Stats, String> {
    let g = Gguf::open(path).map_err(|e| e.to_string())?;
    Ok(Stats {
        keys: g.kv_count() as u64,
        tensors: g.tensor_count() as u64,
        sink: g.data_offset(),
        ..Stats::default()
    })
}

/// ggufkit's full walk of an opened file (the same as `benches/open_walk.rs` of the library).
pub fn walk_ggufkit(g: &Gguf<'_>) -> Stats {
    let mut st = Stats::default();
    for kv in g.metadata() {
        st.keys += 1;
        st.sink = st.sink.wrapping_add(kv.key.len() as u64);
        ggufkit_value(&kv.value, &mut st);
    }
    let mut tc = TensorCount::default();
    for t in g.tensors() {
        let name = t.name();
        tc.add(
            &name,
            t.shape().iter().copied(),
            u64::from(t.type_id()),
            t.offset(),
        );
        tc.sink = tc.sink.wrapping_add(t.n_elements());
    }
    tc.into(&mut st);
    st
}

fn ggufkit_value(v: &Value<'_>, st: &mut Stats) {
    match v {
        Value::String(s) => match s.as_str() {
            Some(s) => st.string(s),
            None => st.num(0),
        },
        Value::Array(a) => ggufkit_array(a, st),
        Value::F32(x) => st.num(u64::from(x.to_bits())),
        Value::F64(x) => st.num(x.to_bits()),
        other => st.num(other.as_i64().map_or(1, |v| v as u64)),
    }
}

/// A numeric array through its typed view (a borrowed slice where the order allows), counted.
fn count_typed<T: ggufkit::value::Scalar>(
    a: &ArrayView<'_>,
    bits: impl Fn(T) -> u64,
    st: &mut Stats,
) {
    if let Some(t) = a.typed::<T>() {
        NumCount::of(t.iter().map(bits)).into(st);
    }
}

fn ggufkit_array(a: &ArrayView<'_>, out: &mut Stats) {
    // counted in a local copy, kept in registers, as in every walker of arrays here
    let mut local = *out;
    let st = &mut local;
    match a.element_type() {
        ValueType::String => {
            if let Some(it) = a.strings() {
                let mut count = StringCount::default();
                for s in it {
                    count.add(s.as_str());
                }
                count.into(st);
            }
        }
        ValueType::F32 => count_typed::<f32>(a, |x| u64::from(x.to_bits()), st),
        ValueType::I32 => count_typed::<i32>(a, |x| x as u64, st),
        ValueType::U32 => count_typed::<u32>(a, u64::from, st),
        ValueType::U8 => count_typed::<u8>(a, u64::from, st),
        ValueType::I8 => count_typed::<i8>(a, |x| x as u64, st),
        ValueType::U16 => count_typed::<u16>(a, u64::from, st),
        ValueType::I16 => count_typed::<i16>(a, |x| x as u64, st),
        ValueType::U64 => count_typed::<u64>(a, |x| x, st),
        ValueType::I64 => count_typed::<i64>(a, |x| x as u64, st),
        ValueType::F64 => count_typed::<f64>(a, f64::to_bits, st),
        _ => {
            for v in a.iter() {
                ggufkit_value(&v, st);
            }
        }
    }
    *out = local;
}

// ---- ggus ----------------------------------------------------------------------------------

fn map_file(path: &Path) -> Result<memmap2::Mmap, String> {
    let f = File::open(path).map_err(|e| format!("opening: {e}"))?;
    // SAFETY: the benchmark maps files nobody modifies while it runs.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| format!("mapping: {e}"))
}

fn run_ggus(path: &Path) -> Result<Stats, String> {
    let map = map_file(path)?;
    let g = ggus::GGuf::new(&map).map_err(|e| e.to_string())?;
    let mut st = Stats::default();
    for (key, kv) in &g.meta_kvs {
        st.keys += 1;
        st.sink = st.sink.wrapping_add(key.len() as u64);
        let mut r = kv.value_reader();
        ggus_value(kv.ty(), &mut r, &mut st)?;
    }
    let mut tc = TensorCount::default();
    for (name, meta) in &g.tensors {
        let info = meta.to_info();
        tc.add(
            name,
            info.shape().iter().copied(),
            info.ty() as u64,
            info.offset() as u64,
        );
    }
    tc.into(&mut st);
    Ok(st)
}

fn ggus_value(
    ty: ggus::GGufMetaDataValueType,
    r: &mut ggus::GGufReader<'_>,
    st: &mut Stats,
) -> Result<(), String> {
    use ggus::GGufMetaDataValueType as T;
    let e = |e: ggus::GGufReadError| format!("{e:?}");
    match ty {
        T::U8 => st.num(u64::from(r.read::<u8>().map_err(e)?)),
        T::I8 => st.num(r.read::<i8>().map_err(e)? as u64),
        T::U16 => st.num(u64::from(r.read::<u16>().map_err(e)?)),
        T::I16 => st.num(r.read::<i16>().map_err(e)? as u64),
        T::U32 => st.num(u64::from(r.read::<u32>().map_err(e)?)),
        T::I32 => st.num(r.read::<i32>().map_err(e)? as u64),
        T::F32 => st.num(u64::from(r.read::<f32>().map_err(e)?.to_bits())),
        T::U64 => st.num(r.read::<u64>().map_err(e)?),
        T::I64 => st.num(r.read::<i64>().map_err(e)? as u64),
        T::F64 => st.num(r.read::<f64>().map_err(e)?.to_bits()),
        T::Bool => st.num(u64::from(r.read_bool().map_err(e)?)),
        T::String => st.string(r.read_str().map_err(e)?),
        T::Array => {
            let (elem, len) = r.read_arr_header().map_err(e)?;
            // the array types the vocabularies hold, counted as ggufkit's are
            match elem {
                T::String => {
                    let mut count = StringCount::default();
                    for _ in 0..len {
                        count.add(Some(r.read_str().map_err(e)?));
                    }
                    count.into(st);
                    return Ok(());
                }
                T::Array => {}
                _ => {
                    let mut count = NumCount::default();
                    for _ in 0..len {
                        count.add(match elem {
                            T::U8 => u64::from(r.read::<u8>().map_err(e)?),
                            T::I8 => r.read::<i8>().map_err(e)? as u64,
                            T::U16 => u64::from(r.read::<u16>().map_err(e)?),
                            T::I16 => r.read::<i16>().map_err(e)? as u64,
                            T::U32 => u64::from(r.read::<u32>().map_err(e)?),
                            T::I32 => r.read::<i32>().map_err(e)? as u64,
                            T::F32 => u64::from(r.read::<f32>().map_err(e)?.to_bits()),
                            T::U64 => r.read::<u64>().map_err(e)?,
                            T::I64 => r.read::<i64>().map_err(e)? as u64,
                            T::F64 => r.read::<f64>().map_err(e)?.to_bits(),
                            _ => u64::from(r.read_bool().map_err(e)?),
                        });
                    }
                    count.into(st);
                    return Ok(());
                }
            }
            // counted in a local copy, kept in registers, as in every walker of arrays here
            let mut local = *st;
            for _ in 0..len {
                ggus_value(elem, r, &mut local)?;
            }
            *st = local;
        }
    }
    Ok(())
}

// ---- candle --------------------------------------------------------------------------------

fn run_candle(path: &Path) -> Result<Stats, String> {
    use candle_core::quantized::gguf_file::Content;
    let f = File::open(path).map_err(|e| format!("opening: {e}"))?;
    let mut r = BufReader::new(f);
    let c = Content::read(&mut r).map_err(|e| e.to_string())?;
    let mut st = Stats::default();
    for (k, v) in &c.metadata {
        st.keys += 1;
        st.sink = st.sink.wrapping_add(k.len() as u64);
        candle_value(v, &mut st);
    }
    let mut tc = TensorCount::default();
    for (name, t) in &c.tensor_infos {
        tc.add(
            name,
            t.shape.dims().iter().map(|&d| d as u64),
            t.ggml_dtype.type_size() as u64,
            t.offset,
        );
    }
    tc.into(&mut st);
    Ok(st)
}

fn candle_value(v: &candle_core::quantized::gguf_file::Value, st: &mut Stats) {
    use candle_core::quantized::gguf_file::Value as V;
    match v {
        V::U8(x) => st.num(u64::from(*x)),
        V::I8(x) => st.num(*x as u64),
        V::U16(x) => st.num(u64::from(*x)),
        V::I16(x) => st.num(*x as u64),
        V::U32(x) => st.num(u64::from(*x)),
        V::I32(x) => st.num(*x as u64),
        V::U64(x) => st.num(*x),
        V::I64(x) => st.num(*x as u64),
        V::F32(x) => st.num(u64::from(x.to_bits())),
        V::F64(x) => st.num(x.to_bits()),
        V::Bool(x) => st.num(u64::from(*x)),
        V::String(s) => st.string(s),
        V::Array(items) => {
            for x in items {
                candle_value(x, st);
            }
        }
    }
}

// ---- gguf-rs-lib ---------------------------------------------------------------------------

fn run_gguf_rs_lib(path: &Path) -> Result<Stats, String> {
    let r = gguf_rs_lib::reader::open_gguf_file(path).map_err(|e| e.to_string())?;
    let mut st = Stats::default();
    for (k, v) in r.metadata().iter() {
        st.keys += 1;
        st.sink = st.sink.wrapping_add(k.len() as u64);
        rs_lib_value(v, &mut st);
    }
    let mut tc = TensorCount::default();
    for t in r.tensor_infos() {
        tc.add(
            t.name(),
            t.shape().dims().iter().copied(),
            t.tensor_type() as u64,
            t.data_offset(),
        );
    }
    tc.into(&mut st);
    Ok(st)
}

fn rs_lib_value(v: &gguf_rs_lib::format::metadata::MetadataValue, st: &mut Stats) {
    use gguf_rs_lib::format::metadata::MetadataValue as V;
    match v {
        V::U8(x) => st.num(u64::from(*x)),
        V::I8(x) => st.num(*x as u64),
        V::U16(x) => st.num(u64::from(*x)),
        V::I16(x) => st.num(*x as u64),
        V::U32(x) => st.num(u64::from(*x)),
        V::I32(x) => st.num(*x as u64),
        V::U64(x) => st.num(*x),
        V::I64(x) => st.num(*x as u64),
        V::F32(x) => st.num(u64::from(x.to_bits())),
        V::F64(x) => st.num(x.to_bits()),
        V::Bool(x) => st.num(u64::from(*x)),
        V::String(s) => st.string(s),
        V::Array(a) => {
            for x in &a.values {
                rs_lib_value(x, st);
            }
        }
    }
}

// ---- floors --------------------------------------------------------------------------------

fn floor_read(path: &Path, header_len: u64) -> Result<Stats, String> {
    let mut f = File::open(path).map_err(|e| format!("opening: {e}"))?;
    let mut buf = vec![0u8; header_len as usize];
    f.read_exact(&mut buf)
        .map_err(|e| format!("reading: {e}"))?;
    Ok(Stats {
        sink: std::hint::black_box(&buf).len() as u64,
        ..Stats::default()
    })
}

fn floor_map(path: &Path, header_len: u64) -> Result<Stats, String> {
    let map = map_file(path)?;
    let n = (header_len as usize).min(map.len());
    let bytes = &map[..n];
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let mut sum = 0u64;
    for w in words {
        sum = sum.wrapping_add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    for &b in tail {
        sum = sum.wrapping_add(u64::from(b));
    }
    Ok(Stats {
        sink: std::hint::black_box(sum),
        ..Stats::default()
    })
}
