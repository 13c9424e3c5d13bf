//! The field writer under every crafted file: one GGUF field at a time, in either byte order,
//! with no check of what is written.
#![forbid(unsafe_code)]

use ggufkit::Endian;

use super::V;

/// GGUF bytes written field by field; [`Encoder::pos`] says where the next field starts.
#[derive(Clone, Debug)]
pub struct Encoder {
    /// Everything written so far (tests may patch it directly).
    pub bytes: Vec<u8>,
    /// The byte order of the numbers written from now on.
    pub endian: Endian,
}

impl Encoder {
    /// Nothing written yet: for files that do not start with a valid magic.
    pub fn new(endian: Endian) -> Self {
        Encoder {
            bytes: Vec::new(),
            endian,
        }
    }

    /// A little-endian header: magic, version, tensor count, key-value count (any values).
    pub fn header(version: u32, n_tensors: u64, n_kv: u64) -> Self {
        Self::header_in(Endian::Little, version, n_tensors, n_kv)
    }

    /// [`Encoder::header`] in the given byte order.
    pub fn header_in(endian: Endian, version: u32, n_tensors: u64, n_kv: u64) -> Self {
        let mut e = Encoder::new(endian);
        e.raw(b"GGUF").u32(version).u64(n_tensors).u64(n_kv);
        e
    }

    /// Where the next field starts.
    pub fn pos(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn num<const N: usize>(&mut self, le: [u8; N], be: [u8; N]) -> &mut Self {
        self.bytes.extend(match self.endian {
            Endian::Little => le,
            Endian::Big => be,
        });
        self
    }

    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.num(v.to_le_bytes(), v.to_be_bytes())
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.num(v.to_le_bytes(), v.to_be_bytes())
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.num(v.to_le_bytes(), v.to_be_bytes())
    }

    /// Bytes as they are.
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// A GGUF string: its u64 length, then its bytes.
    pub fn str(&mut self, s: impl AsRef<[u8]>) -> &mut Self {
        let s = s.as_ref();
        self.u64(s.len() as u64).raw(s)
    }

    /// The start of a key-value pair: the key, then the value's type id (the value follows).
    pub fn key(&mut self, key: impl AsRef<[u8]>, ty: u32) -> &mut Self {
        self.str(key).u32(ty)
    }

    /// A value's bytes, without its type id; arrays write their element type id and count, then
    /// their elements.
    pub fn value(&mut self, v: &V) -> &mut Self {
        match v {
            V::U8(x) => self.u8(*x),
            V::I8(x) => self.u8(*x as u8),
            V::Bool(x) => self.u8(*x),
            V::U16(x) => self.u16(*x),
            V::I16(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::U32(x) => self.u32(*x),
            V::I32(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::F32(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::U64(x) => self.u64(*x),
            V::I64(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::F64(x) => self.num(x.to_le_bytes(), x.to_be_bytes()),
            V::Str(s) => self.str(s),
            V::Arr(t, items) => {
                self.u32(*t).u64(items.len() as u64);
                for it in items {
                    self.value(it);
                }
                self
            }
        }
    }

    /// A whole key-value pair: key, type id, value.
    pub fn kv(&mut self, key: impl AsRef<[u8]>, v: &V) -> &mut Self {
        self.key(key, v.type_id()).value(v)
    }

    /// `key` = uint32 `v`.
    pub fn kv_u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.kv(key, &V::U32(v))
    }

    /// `key` = string `v`.
    pub fn kv_str(&mut self, key: &str, v: &str) -> &mut Self {
        self.kv(key, &V::str(v))
    }

    /// A tensor info: name, dimension count and dimensions, type id, data offset.
    pub fn tensor(
        &mut self,
        name: impl AsRef<[u8]>,
        dims: &[u64],
        ty: u32,
        offset: u64,
    ) -> &mut Self {
        self.str(name).u32(dims.len() as u32);
        for &d in dims {
            self.u64(d);
        }
        self.u32(ty).u64(offset)
    }

    /// Zero bytes up to the next multiple of `align` (from the start of the bytes).
    pub fn pad(&mut self, align: u64) -> &mut Self {
        let to = self.pos().div_ceil(align) * align;
        self.bytes.resize(to as usize, 0);
        self
    }

    /// `n` bytes of tensor data (a simple pattern).
    pub fn data(&mut self, n: usize) -> &mut Self {
        self.bytes.extend(super::pattern(n));
        self
    }

    /// A copy of the bytes written.
    pub fn build(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}
