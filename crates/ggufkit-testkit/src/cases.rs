//! The Rust suite's crafted files, written out for other test suites: when `GGUFKIT_CASES_DIR`
//! is set, every case a hostile test checks is saved there as `<hash>.gguf`, with one line of
//! `cases.tsv` saying what the Rust test expects of it, so that the Python package's tests run
//! exactly the same files through Python. Without the variable nothing is written.

use std::fs::OpenOptions;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::PathBuf;

/// What strict reading of a case must give.
pub enum Expect<'a> {
    /// The file opens.
    Opens,
    /// Strict reading fails with this rule id at this byte offset.
    Fails { rule: &'a str, offset: u64 },
    /// Either way, but without a crash and with bounded memory (the allocation cases).
    Survives,
}

/// Records `bytes` with what is expected of it (see the [module documentation](self)).
pub fn record(suite: &str, bytes: &[u8], expect: Expect<'_>) {
    let Some(dir) = std::env::var_os("GGUFKIT_CASES_DIR").map(PathBuf::from) else {
        return;
    };
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    let name = format!("{:016x}.gguf", h.finish());
    let (verdict, rule, offset) = match expect {
        Expect::Opens => ("opens", "-", String::from("-")),
        Expect::Fails { rule, offset } => ("fails", rule, offset.to_string()),
        Expect::Survives => ("survives", "-", String::from("-")),
    };
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(&name), bytes)?;
        // one short line per write: appends from parallel tests do not interleave
        let line = format!("{name}\t{suite}\t{verdict}\t{rule}\t{offset}\n");
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("cases.tsv"))?
            .write_all(line.as_bytes())
    };
    if let Err(e) = write() {
        panic!("GGUFKIT_CASES_DIR={}: {e}", dir.display());
    }
}
