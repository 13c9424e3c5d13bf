//! The promises every writing command keeps: it never replaces its own input (whatever name
//! reaches it, `--force` or not), nor an existing file without `--force`; a new file gets the
//! mode the umask gives and a replaced file keeps its own; an interrupt (Ctrl-C) leaves no
//! temporary file behind.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::run;
use ggufkit::write::GgufBuilder;
use ggufkit::GgmlType;
use ggufkit_testkit::sparse::sparse_file;

/// A small model with two f32 tensors, written to `dir/name`.
fn model(dir: &Path, name: &str) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", "promises").unwrap();
    let d: Vec<u8> = (0..256u32)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    b.add_tensor_with_data("a.weight", GgmlType::F32, &[16, 16], &d)
        .unwrap();
    b.add_tensor_with_data("b.weight", GgmlType::F32, &[16, 16], &d)
        .unwrap();
    let bytes = b.to_vec().unwrap();
    fs::write(dir.join(name), &bytes).unwrap();
    bytes
}

/// Files in `dir` whose name marks them as a temporary file of `write/atomic.rs`.
fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
        .collect()
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Every writing command, its output `OUT` (a placeholder replaced by the caller).
fn writers() -> Vec<Vec<&'static str>> {
    vec![
        vec!["report", "m.gguf", "-o", "OUT.html"],
        vec!["convert", "m.gguf", "-o", "OUT"],
        vec!["convert", "m.gguf", "-o", "OUT", "--endian", "big"],
        vec!["meta", "set", "m.gguf", "general.name", "x", "-o", "OUT"],
        vec!["meta", "rm", "m.gguf", "general.name", "-o", "OUT"],
        vec!["carve", "m.gguf", "-o", "OUT"],
        vec!["export", "m.gguf", "--tensor", "a.weight", "-o", "OUT.npy"],
        vec!["export", "m.gguf", "-o", "OUT.safetensors"],
        vec!["merge", "m-00001-of-00001.gguf", "-o", "OUT"],
        vec!["quantize", "m.gguf", "OUT", "Q8_0"],
    ]
}

/// A split of m.gguf into one shard, for `merge`.
fn setup(dir: &Path) -> Vec<u8> {
    let bytes = model(dir, "m.gguf");
    let (code, _, err) = run(dir, &["split", "m.gguf", "--max-tensors", "9", "-o", "m"]);
    assert_eq!(code, 0, "{err}");
    bytes
}

/// `args` with its output placeholder (`OUT`, or `OUT.ext` keeping the extension) set to `out`.
fn with_out(args: &[&str], out: &str) -> Vec<String> {
    args.iter()
        .map(|a| match a.strip_prefix("OUT") {
            Some(ext) => format!("{out}{ext}"),
            None => a.to_string(),
        })
        .collect()
}

/// The output file `args` writes when its placeholder is `out`.
fn out_of(args: &[&str], out: &str) -> String {
    let a = args.iter().find(|a| a.starts_with("OUT")).unwrap();
    format!("{out}{}", &a[3..])
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn no_command_replaces_its_own_input() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    // the input under another name: a hard link and a symbolic link
    fs::hard_link(dir.path().join("m.gguf"), dir.path().join("hard.gguf")).unwrap();
    std::os::unix::fs::symlink("m.gguf", dir.path().join("soft.gguf")).unwrap();
    for args in writers() {
        let input = args.iter().find(|a| a.ends_with(".gguf")).copied().unwrap();
        let mut outs = vec![input.to_string()];
        if input == "m.gguf" {
            outs.push("hard.gguf".into());
            outs.push("./soft.gguf".into());
        }
        for out in &outs {
            let before = fs::read(dir.path().join(input)).unwrap();
            // the output named exactly as the input, whatever the command's usual extension
            let mut a: Vec<&str> = args
                .iter()
                .map(|a| {
                    if a.starts_with("OUT") {
                        out.as_str()
                    } else {
                        a
                    }
                })
                .collect();
            a.push("--force");
            let (code, _, err) = run(dir.path(), &a);
            assert_eq!(code, 2, "{a:?} must refuse: {err}");
            assert!(err.contains("is the input file"), "{a:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{a:?}: {err}");
            assert_eq!(fs::read(dir.path().join(input)).unwrap(), before, "{a:?}");
            assert!(temporaries(dir.path()).is_empty(), "{a:?}");
        }
    }
}

#[test]
fn no_command_replaces_a_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let mut args = writers();
    args.push(vec!["split", "m.gguf", "--max-tensors", "1", "-o", "s"]);
    for args in args {
        let out = if args[0] == "split" {
            "s-00001-of-00002.gguf".to_string()
        } else {
            out_of(&args, "existing")
        };
        let out = out.as_str();
        fs::write(dir.path().join(out), b"precious").unwrap();
        let owned = with_out(&args, "existing");
        let a = strs(&owned);
        let (code, _, err) = run(dir.path(), &a);
        assert_eq!(code, 2, "{a:?} must refuse: {err}");
        assert!(err.contains("already exists"), "{a:?}: {err}");
        assert_eq!(fs::read(dir.path().join(out)).unwrap(), b"precious");
        let mut a = a.clone();
        a.push("--force");
        let (code, _, err) = run(dir.path(), &a);
        assert_eq!(code, 0, "{a:?} with --force: {err}");
        assert_ne!(fs::read(dir.path().join(out)).unwrap(), b"precious");
        fs::remove_file(dir.path().join(out)).unwrap();
        assert!(temporaries(dir.path()).is_empty(), "{a:?}");
    }
}

/// Runs `gguf ARGS` in `dir` under `umask`.
fn run_umask(dir: &Path, umask: &str, args: &[&str]) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("gguf");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn new_files_get_the_umask_mode_and_replaced_files_keep_theirs() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let mut all = writers();
    all.push(vec!["split", "m.gguf", "--max-tensors", "1", "-o", "OUT"]);
    for args in all {
        let out = "new";
        let written = |d: &Path| -> Vec<std::path::PathBuf> {
            if args[0] == "split" {
                vec![
                    d.join("new-00001-of-00002.gguf"),
                    d.join("new-00002-of-00002.gguf"),
                ]
            } else {
                vec![d.join(out_of(&args, out))]
            }
        };
        for (umask, want) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
            let owned = with_out(&args, out);
            let a = strs(&owned);
            let (code, err) = run_umask(dir.path(), umask, &a);
            assert_eq!(code, 0, "{a:?}: {err}");
            for p in written(dir.path()) {
                assert_eq!(mode(&p), want, "{a:?} under umask {umask}: {}", p.display());
                fs::remove_file(&p).unwrap();
            }
        }
        // a file replaced with --force keeps its mode
        let owned = with_out(&args, out);
        let a = strs(&owned);
        let (code, err) = run_umask(dir.path(), "022", &a);
        assert_eq!(code, 0, "{a:?}: {err}");
        for p in written(dir.path()) {
            fs::set_permissions(&p, fs::Permissions::from_mode(0o604)).unwrap();
        }
        let mut a = a.clone();
        a.push("--force");
        let (code, err) = run_umask(dir.path(), "077", &a);
        assert_eq!(code, 0, "{a:?}: {err}");
        for p in written(dir.path()) {
            assert_eq!(mode(&p), 0o604, "{a:?} replacing {}", p.display());
            fs::remove_file(&p).unwrap();
        }
    }
}

#[test]
fn an_in_place_rewrite_keeps_the_mode() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path(), "m.gguf");
    let p = dir.path().join("m.gguf");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    // a value far longer than the header's padding: the file is rewritten, not edited in place
    let long = "x".repeat(5000);
    let (code, err) = run_umask(
        dir.path(),
        "077",
        &["meta", "set", "m.gguf", "general.name", &long, "--in-place"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rewritten"), "{err}");
    assert_eq!(mode(&p), 0o640);
}

#[test]
fn ctrl_c_during_an_export_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // one f16 tensor of 1 GiB, all zeros and sparse: the export writes 2 GiB of float32
    let ne0: u64 = 1 << 15;
    let ne1: u64 = 1 << 14;
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.add_tensor("big.weight", GgmlType::F16, &[ne0, ne1])
        .unwrap();
    let (header, layout) = b.header().unwrap();
    let input = dir.path().join("big.gguf");
    if !sparse_file(&input, &header, layout.total_len) {
        return;
    }
    for args in [
        vec![
            "export",
            "big.gguf",
            "--tensor",
            "big.weight",
            "-o",
            "big.npy",
        ],
        vec!["export", "big.gguf", "-o", "big.safetensors"],
        vec!["convert", "big.gguf", "-o", "big2.gguf", "--endian", "big"],
    ] {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("gguf"))
            .args(&args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // wait until the temporary file holds some data, then interrupt
        let start = Instant::now();
        let started = loop {
            let grown = fs::read_dir(dir.path()).unwrap().any(|e| {
                let e = e.unwrap();
                let n = e.file_name().to_string_lossy().into_owned();
                n.ends_with(".tmp") && e.metadata().map(|m| m.len() > 1 << 20).unwrap_or(false)
            });
            if grown {
                break true;
            }
            if start.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
                break false;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if !started {
            let _ = child.kill();
            let _ = child.wait();
            ggufkit_testkit::skip::skip(
                ggufkit_testkit::skip::Need::Platform,
                format!("{args:?} finished before it could be interrupted"),
            );
            continue;
        }
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "{args:?}: {status:?}");
        assert!(
            temporaries(dir.path()).is_empty(),
            "{args:?} left {:?}",
            temporaries(dir.path())
        );
        let out = args[args.len() - 1 - usize::from(args[0] == "convert") * 2];
        assert!(!dir.path().join(out).exists(), "{args:?} left {out}");
    }
}
