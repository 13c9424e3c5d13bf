//! `gguf hash FILE... [--algo xxh64|sha256] [--check MANIFEST]`: one line per tensor and one for
//! the whole tensor data section, in the manifest format of `ggufkit::hash` that `--check` reads
//! back.

use std::path::{Path, PathBuf};

use ggufkit::hash::{self, FileHashes, HashAlgo, Manifest};
use ggufkit::Error;

use super::{open_reporting, verdict, CliError, CmdResult, FAILED, FOUND, OK};
use crate::output::hash_check::check_text;
use crate::output::print;
use crate::output::progress::Progress;

#[derive(clap::Args)]
#[command(after_long_help = "\
The hashes cover the tensor data only: one line per tensor (its bytes, without padding) and one
for the whole data section. Metadata is not hashed, so a file whose metadata was edited (a new
name, a chat template) still matches its manifest; compare metadata with `gguf diff`.

With --check MANIFEST and no FILE, every file the manifest names is checked, found as the
manifest names it or, for a relative name, beside the manifest.")]
pub struct Args {
    /// Files to hash (with --check, the manifest's files when none is given).
    #[arg(required_unless_present = "check")]
    files: Vec<PathBuf>,
    /// The hash algorithm (with --check, the manifest's own algorithm is used).
    #[arg(long, value_enum, default_value_t = Algo::Xxh64)]
    algo: Algo,
    /// Compare against a manifest written by `gguf hash`; exit 1 on any mismatch.
    #[arg(long, value_name = "MANIFEST")]
    check: Option<PathBuf>,
}

/// A hash algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    /// XXH64, seed 0: fast, not cryptographic (the default, as in llama.cpp's gguf-hash).
    Xxh64,
    /// SHA-256.
    Sha256,
}

impl From<Algo> for HashAlgo {
    fn from(a: Algo) -> HashAlgo {
        match a {
            Algo::Xxh64 => HashAlgo::Xxh64,
            Algo::Sha256 => HashAlgo::Sha256,
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    let manifest = match &args.check {
        Some(m) => Some(read_manifest(m)?),
        None => None,
    };
    let files = match (&manifest, args.files.is_empty()) {
        (Some(m), true) => manifest_files(m, args.check.as_deref().unwrap_or(Path::new("")))?,
        _ => args.files.clone(),
    };
    let mut code = OK;
    for file in &files {
        let r = match &manifest {
            None => hash_one(file, args.algo.into()).map(|(h, code)| {
                print(&hash::manifest_section(&file.display().to_string(), &h));
                code
            }),
            Some(m) => check_one(file, m, args.check.as_deref().unwrap_or(Path::new(""))),
        };
        match r {
            Ok(c) => code = code.max(c),
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
            }
        }
    }
    Ok(code)
}

/// The files a manifest names: as named when that exists (or is absolute), else beside the
/// manifest.
fn manifest_files(m: &Manifest, manifest: &Path) -> Result<Vec<PathBuf>, CliError> {
    let named: Vec<PathBuf> = m
        .sections
        .iter()
        .filter_map(|s| s.file.as_deref())
        .map(|f| {
            let p = PathBuf::from(f);
            let beside = manifest.parent().map(|d| d.join(&p));
            match beside {
                Some(b) if p.is_relative() && !p.exists() && b.exists() => b,
                _ => p,
            }
        })
        .collect();
    if named.is_empty() {
        return Err(CliError::failed(format!(
            "{}: the manifest names no file; give the FILE to check",
            manifest.display()
        )));
    }
    Ok(named)
}

fn read_manifest(path: &Path) -> Result<Manifest, CliError> {
    super::readable_as(path, "a manifest written by `gguf hash`", true)?;
    Manifest::read(path).map_err(|e| match e {
        // the I/O error already names the manifest
        Error::Io { .. } => CliError::failed(e.to_string()),
        other => CliError::failed(format!("{}: {other}", path.display())),
    })
}

/// The hashes of `file`, with the exit code its validity owes (docs/exit-codes.md). A remote
/// file's data section is streamed in one request after its header's.
fn hash_one(file: &Path, algo: HashAlgo) -> Result<(FileHashes, u8), CliError> {
    let opened = open_reporting(file)?;
    let bar = Progress::bytes(0, &file.display().to_string());
    let h = hash::hash_opened(&opened, algo, &bar).map_err(|e| match e {
        // a stream goes once through the data, in file order
        Error::OverlappingTensors { .. } if !opened.holds_data() => CliError::failed(format!(
            "{}: tensors overlap; hash a local copy",
            file.display()
        )),
        other => CliError::from_lib(file, &other),
    })?;
    bar.finish();
    Ok((h, verdict(opened.gguf())))
}

fn check_one(file: &Path, manifest: &Manifest, manifest_path: &Path) -> CmdResult {
    let shown = file.display().to_string();
    let section = manifest.section_for(file).ok_or_else(|| {
        CliError::failed(format!(
            "{}: no section for {shown} (its sections: {})",
            manifest_path.display(),
            manifest
                .sections
                .iter()
                .filter_map(|s| s.file.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let Some(algo) = section.algo else {
        return Err(CliError::failed(format!(
            "{}: the section for {shown} has no hashes",
            manifest_path.display()
        )));
    };
    let (hashes, code) = hash_one(file, algo)?;
    let check = section.check(&hashes);
    print(&check_text(&shown, &check));
    Ok(if check.passed() { code } else { FOUND })
}
