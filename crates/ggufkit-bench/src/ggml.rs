//! ggml as a peer of the codec comparison: the `codec_bench` program of `scripts/ggml-harness.sh`
//! (ggml-base from the llama-cpp-python sdist), run as a subprocess that times ggml's `to_float`
//! and `ggml_quantize_chunk` itself and answers over pipes. No FFI: inputs go through files, and
//! outputs are compared by [`hash64`] of their bytes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Where the driver is: `$GGUFKIT_GGML_CODEC_BENCH`, else `scripts/ggml-harness.sh`'s default
/// output. `None` when it is not there.
pub fn driver_path() -> Option<PathBuf> {
    let p = match std::env::var_os("GGUFKIT_GGML_CODEC_BENCH") {
        Some(p) => PathBuf::from(p),
        None => std::env::temp_dir().join("llama-quantize/harness/codec_bench"),
    };
    p.is_file().then_some(p)
}

/// The hash both sides compute over output bytes: 64-bit little-endian words (the tail
/// zero-padded), `h = (h ^ w) * FNV_PRIME`, then a fold. Equal bytes, equal hashes.
pub fn hash64(bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(PRIME);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut w = [0u8; 8];
        w[..tail.len()].copy_from_slice(tail);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(PRIME);
    }
    h ^ (h >> 32)
}

/// [`hash64`] of floats as their little-endian bytes.
pub fn hash64_f32(xs: &[f32]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ (xs.len() as u64 * 4);
    let mut pairs = xs.chunks_exact(2);
    for p in &mut pairs {
        let w = u64::from(p[0].to_bits()) | u64::from(p[1].to_bits()) << 32;
        h = (h ^ w).wrapping_mul(PRIME);
    }
    if let [x] = pairs.remainder() {
        h = (h ^ u64::from(x.to_bits())).wrapping_mul(PRIME);
    }
    h ^ (h >> 32)
}

/// One timed batch of ggml's: total nanoseconds of the runs and the hash of the last output.
#[derive(Clone, Copy, Debug)]
pub struct Timed {
    pub ns: u64,
    pub hash: u64,
}

/// A running `codec_bench`.
pub struct Ggml {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Ggml {
    /// Starts the driver at `path`.
    pub fn spawn(path: &Path) -> std::io::Result<Ggml> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Ggml {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends one command and returns its reply line (`Ok(None)` for `none`: ggml has no such
    /// codec).
    fn ask(&mut self, cmd: &str) -> Result<Option<String>, String> {
        writeln!(self.stdin, "{cmd}").map_err(|e| format!("codec_bench: {e}"))?;
        self.stdin
            .flush()
            .map_err(|e| format!("codec_bench: {e}"))?;
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .map_err(|e| format!("codec_bench: {e}"))?;
        if n == 0 {
            return Err(format!("codec_bench exited on `{cmd}`"));
        }
        let line = line.trim_end();
        match line.strip_prefix("ok") {
            Some(rest) => Ok(Some(rest.trim().to_string())),
            None if line == "none" => Ok(None),
            None => Err(format!("codec_bench: `{cmd}`: {line}")),
        }
    }

    /// Loads `n` elements of blocks of type id `ty` from `path`; false when ggml has no
    /// `to_float` for it.
    pub fn load_blocks(&mut self, ty: u32, n: usize, path: &Path) -> Result<bool, String> {
        Ok(self
            .ask(&format!("blocks {ty} {n} {}", path.display()))?
            .is_some())
    }

    /// Loads the quantizers' input, `n` floats, from `path`.
    pub fn load_src(&mut self, n: usize, path: &Path) -> Result<(), String> {
        self.ask(&format!("src {n} {}", path.display())).map(|_| ())
    }

    /// Sets (or with `None` clears) the importance weights of `n_per_row` floats in `path`.
    pub fn set_importance(&mut self, n_per_row: usize, path: Option<&Path>) -> Result<(), String> {
        let p = path.map_or("-".to_string(), |p| p.display().to_string());
        self.ask(&format!("imatrix {n_per_row} {p}")).map(|_| ())
    }

    /// `reps` runs of `to_float` over the loaded blocks.
    pub fn dequantize(&mut self, reps: u32) -> Result<Timed, String> {
        let r = self.ask(&format!("deq {reps}"))?;
        parse_timed(r.as_deref())
    }

    /// `reps` runs of `ggml_quantize_chunk(ty, src, .., rows of n_per_row, importance)` over
    /// the loaded input; `None` when ggml cannot (a type that needs importance, without it).
    pub fn quantize(
        &mut self,
        ty: u32,
        n_per_row: usize,
        reps: u32,
    ) -> Result<Option<Timed>, String> {
        match self.ask(&format!("quant {ty} {n_per_row} {reps}"))? {
            None => Ok(None),
            Some(r) => parse_timed(Some(&r)).map(Some),
        }
    }
}

fn parse_timed(r: Option<&str>) -> Result<Timed, String> {
    let r = r.ok_or("codec_bench: no codec")?;
    let mut it = r.split_whitespace();
    let ns = it.next().and_then(|s| s.parse().ok());
    let hash = it.next().and_then(|s| u64::from_str_radix(s, 16).ok());
    match (ns, hash) {
        (Some(ns), Some(hash)) => Ok(Timed { ns, hash }),
        _ => Err(format!("codec_bench: bad reply `{r}`")),
    }
}

impl Drop for Ggml {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_covers_every_byte_and_the_length() {
        let a = hash64(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_ne!(a, hash64(&[1, 2, 3, 4, 5, 6, 7, 8, 8]));
        assert_ne!(hash64(&[0; 8]), hash64(&[0; 9]));
        assert_eq!(
            hash64_f32(&[1.0, -0.0]),
            hash64(&[0, 0, 128, 63, 0, 0, 0, 128])
        );
        assert_eq!(hash64_f32(&[2.0]), hash64(&[0, 0, 0, 64]));
    }
}
