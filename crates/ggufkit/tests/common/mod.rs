//! A byte-level GGUF encoder for crafting test files, one field at a time, defects included.
//! Deliberately independent of the library's writer: tests must be able to write what no valid
//! writer would.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Builds GGUF bytes field by field, remembering where named fields start.
pub struct Craft {
    pub bytes: Vec<u8>,
    pub big: bool,
}

impl Craft {
    /// Magic, version, tensor count, key-value count.
    pub fn new(version: u32, n_tensors: u64, n_kv: u64) -> Self {
        Self::with_endian(false, version, n_tensors, n_kv)
    }

    pub fn with_endian(big: bool, version: u32, n_tensors: u64, n_kv: u64) -> Self {
        let mut c = Craft {
            bytes: b"GGUF".to_vec(),
            big,
        };
        c.u32(version).u64(n_tensors).u64(n_kv);
        c
    }

    pub fn pos(&self) -> u64 {
        self.bytes.len() as u64
    }

    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    pub fn u16(&mut self, v: u16) -> &mut Self {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend(b);
        self
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend(b);
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend(b);
        self
    }

    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// A GGUF string: u64 length then bytes.
    pub fn str(&mut self, s: &[u8]) -> &mut Self {
        self.u64(s.len() as u64).raw(s)
    }

    /// A key-value pair header: key, then the value type id (the value follows).
    pub fn key(&mut self, key: &str, ty: u32) -> &mut Self {
        self.str(key.as_bytes()).u32(ty)
    }

    /// `key` = uint32 `v`.
    pub fn kv_u32(&mut self, key: &str, v: u32) -> &mut Self {
        self.key(key, 4).u32(v)
    }

    /// `key` = string `v`.
    pub fn kv_str(&mut self, key: &str, v: &str) -> &mut Self {
        self.key(key, 8).str(v.as_bytes())
    }

    /// A tensor info.
    pub fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> &mut Self {
        self.str(name.as_bytes()).u32(dims.len() as u32);
        for &d in dims {
            self.u64(d);
        }
        self.u32(ty).u64(offset)
    }

    /// Zero bytes up to the next multiple of `align`.
    pub fn pad(&mut self, align: u64) -> &mut Self {
        while self.bytes.len() as u64 % align != 0 {
            self.bytes.push(0);
        }
        self
    }

    /// `n` bytes of data (a simple pattern).
    pub fn data(&mut self, n: usize) -> &mut Self {
        self.bytes.extend((0..n).map(|i| (i * 7 + 3) as u8));
        self
    }

    pub fn build(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}

/// `../shared` beside the repository, when present.
pub fn shared() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIP: {} not found; tests over the shared corpus and vectors are skipped",
            p.display()
        );
        None
    }
}

/// `../shared/corpus`, when present; otherwise prints why the caller skips and returns `None`.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "SKIPPED {test}: the corpus {} is absent (it lives in ../shared beside the repository)",
            dir.display()
        );
        None
    }
}

/// Every `*.gguf` below `dir`, sorted.
pub fn gguf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gguf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Writes `bytes` to `path` and extends the file to `len` bytes without writing them (a sparse
/// file), for headers that declare more than any test can hold. False, saying why the caller
/// skips, where the file system would store the zeros (a probe of 64 MiB is checked first).
pub fn sparse_file(path: &Path, bytes: &[u8], len: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = path.with_extension("probe");
    let sparse = std::fs::File::create(&probe)
        .and_then(|f| f.set_len(64 << 20).and_then(|_| f.metadata()))
        .map(|m| m.blocks() * 512 < 1 << 20);
    let _ = std::fs::remove_file(&probe);
    if !matches!(sparse, Ok(true)) {
        println!("SKIPPED: {} does not hold sparse files", path.display());
        return false;
    }
    let made = std::fs::write(path, bytes)
        .and_then(|_| std::fs::OpenOptions::new().write(true).open(path))
        .and_then(|f| f.set_len(len));
    if let Err(e) = made {
        println!(
            "SKIPPED: no sparse file of {len} bytes at {}: {e}",
            path.display()
        );
        return false;
    }
    true
}
