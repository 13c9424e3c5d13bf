//! Every command that writes (`meta set`, `meta rm`, `convert`, `split`, `merge`, `carve`,
//! `export`) against a write that fails midway and against a kill midway: the files that existed
//! before (the input, and an output being replaced with `--force`) are byte-identical afterwards,
//! and a failed write leaves no temporary file behind.
//!
//! The fault is injected with the file-size limit (`ulimit -f 64`: no file may grow past 64 KiB,
//! and every output here is larger): with SIGXFSZ ignored the write returns EFBIG (a failing
//! write); with it not ignored the kernel kills the process at that write (a kill mid-write).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

use ggufkit::write::GgufBuilder;
use ggufkit::GgmlType;

/// SIGXFSZ on Linux.
const SIGXFSZ: i32 = 25;

/// A model of about 1 MiB: four f32 tensors of 64k elements and some metadata.
fn model() -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", "hostile").unwrap();
    b.set("tokenizer.ggml.tokens", vec!["a", "b", "c"]).unwrap();
    let data: Vec<Vec<u8>> = (0..4u32)
        .map(|k| {
            (0..65536u32)
                .flat_map(|i| ((i ^ k) as f32 * 0.25).to_le_bytes())
                .collect()
        })
        .collect();
    for (k, d) in data.iter().enumerate() {
        b.add_tensor_with_data(&format!("blk.{k}.w"), GgmlType::F32, &[256, 256], d)
            .unwrap();
    }
    b.to_vec().unwrap()
}

/// Every file in `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Runs `gguf ARGS` in `dir` under a 64 KiB file-size limit; `ignore` ignores SIGXFSZ.
fn run_limited(dir: &Path, args: &[&str], ignore: bool) -> std::process::Output {
    let trap = if ignore { "trap '' XFSZ; " } else { "" };
    Command::new("bash")
        .current_dir(dir)
        .arg("-c")
        .arg(format!("{trap}ulimit -f 64; exec \"$@\""))
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_gguf"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn run(dir: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_gguf"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "gguf {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A folder with the model, its 2-shard split, a model inside other bytes, and an old file at
/// every output path (to be replaced with --force).
fn setup(dir: &Path) {
    let m = model();
    fs::write(dir.join("m.gguf"), &m).unwrap();
    let mut wrapped = b"some other container header".to_vec();
    wrapped.extend_from_slice(&m);
    wrapped.extend_from_slice(b"trailer");
    fs::write(dir.join("wrapped.bin"), wrapped).unwrap();
    run(dir, &["split", "m.gguf", "--max-tensors", "2", "-o", "sh"]);
    for out in [
        "out.gguf",
        "out.npy",
        "out.safetensors",
        "part-00001-of-00002.gguf",
        "part-00002-of-00002.gguf",
    ] {
        fs::write(
            dir.join(out),
            format!("the old {out}, to be kept on failure"),
        )
        .unwrap();
    }
}

/// Each command that writes, with --force onto an existing output or --in-place.
fn commands() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "meta set -o",
            vec![
                "meta",
                "set",
                "m.gguf",
                "general.name",
                "x",
                "-o",
                "out.gguf",
                "--force",
            ],
        ),
        (
            "meta rm -o",
            vec![
                "meta",
                "rm",
                "m.gguf",
                "general.name",
                "-o",
                "out.gguf",
                "--force",
            ],
        ),
        (
            // a value this long cannot be written in place: the file is rewritten
            "meta set --in-place (rewrite)",
            vec!["meta", "set", "m.gguf", "general.name", LONG, "--in-place"],
        ),
        (
            "convert --endian",
            vec![
                "convert", "m.gguf", "--endian", "big", "-o", "out.gguf", "--force",
            ],
        ),
        (
            "convert --type",
            vec![
                "convert", "m.gguf", "--type", "q8_0", "--all", "-o", "out.gguf", "--force",
            ],
        ),
        (
            "convert (rewrite)",
            vec!["convert", "m.gguf", "-o", "out.gguf", "--force"],
        ),
        (
            "split",
            vec![
                "split",
                "m.gguf",
                "--max-tensors",
                "2",
                "-o",
                "part",
                "--force",
            ],
        ),
        (
            "merge",
            vec![
                "merge",
                "sh-00001-of-00002.gguf",
                "-o",
                "out.gguf",
                "--force",
            ],
        ),
        (
            "carve",
            vec!["carve", "wrapped.bin", "-o", "out.gguf", "--force"],
        ),
        (
            "export .npy",
            vec![
                "export", "m.gguf", "--tensor", "blk.1.w", "-o", "out.npy", "--force",
            ],
        ),
        (
            "export .safetensors",
            vec!["export", "m.gguf", "-o", "out.safetensors", "--force"],
        ),
        (
            "quantize",
            vec!["quantize", "m.gguf", "out.gguf", "Q8_0", "--force"],
        ),
    ]
}

const LONG: &str = "a name far longer than the room the header has for it, so the in-place edit \
                    cannot fit and the whole file is written again through a temporary file, \
                    which the file-size limit then stops midway through its tensor data";

#[test]
fn commands_without_the_limit_succeed() {
    // the fault injection below is only meaningful if every command works without it
    for (what, args) in commands() {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let o = Command::new(env!("CARGO_BIN_EXE_gguf"))
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn a_failing_write_leaves_every_file_as_it_was() {
    for (what, args) in commands() {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let before = snapshot(dir.path());
        let o = run_limited(dir.path(), &args, true);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: one error line: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        let after = snapshot(dir.path());
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "{what}: no file left behind or removed"
        );
        for (name, bytes) in &before {
            assert!(after[name] == *bytes, "{what}: {name} changed");
        }
    }
}

#[test]
fn a_kill_midway_leaves_every_file_as_it_was() {
    for (what, args) in commands() {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let before = snapshot(dir.path());
        let o = run_limited(dir.path(), &args, false);
        assert_eq!(
            o.status.signal(),
            Some(SIGXFSZ),
            "{what}: killed at the write: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let after = snapshot(dir.path());
        for (name, bytes) in &before {
            assert!(
                after.get(name) == Some(bytes),
                "{what}: {name} changed or vanished"
            );
        }
        // a killed process cannot clean up: at most its temporary files remain, never a file
        // at an output path that did not exist
        for name in after.keys().filter(|n| !before.contains_key(*n)) {
            assert!(
                !name.ends_with(".gguf")
                    && !name.ends_with(".npy")
                    && !name.ends_with(".safetensors"),
                "{what}: a partial output {name} looks like a finished file"
            );
        }
    }
}
