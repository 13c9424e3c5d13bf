//! The CLI on hostile files: deep nesting must not overflow the stack of the commands that print
//! values. The stack is cut to 1 MiB (`ulimit -s`) so that a recursion over the nesting fails at a
//! small depth; deeper files are printed too (walking nesting is linear), just with more output.

use std::process::Command;

use ggufkit_testkit::fixtures::deep_nesting;

fn run_small_stack(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg("ulimit -s 1024; exec \"$@\"")
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_gguf"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn deep_nesting_prints_without_overflowing_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 4000;
    let p = dir.path().join("deep.gguf");
    std::fs::write(&p, deep_nesting(depth)).unwrap();
    let path = p.to_str().unwrap();
    let o = run_small_stack(&["dump", "--json", path]);
    assert!(
        o.status.success(),
        "dump --json: {:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    // the JSON is complete: descend through every level to the u8 at the bottom
    let text = String::from_utf8(o.stdout).unwrap();
    let inner = text
        .find("{\"element_type\":\"uint8\",\"value\":[7]}")
        .expect("the innermost value");
    // the key's own element type, then every nested level but the innermost
    assert_eq!(
        text[..inner].matches("\"element_type\":\"array\"").count(),
        depth
    );
    assert!(
        text[inner..].starts_with(&format!(
            "{{\"element_type\":\"uint8\",\"value\":[7]}}{}",
            "]}".repeat(depth - 1)
        )),
        "every level is closed"
    );
    for args in [
        vec!["dump", path],
        vec!["info", path],
        vec!["validate", path],
        vec!["audit", path],
    ] {
        let o = run_small_stack(&args);
        assert!(
            o.status.success(),
            "{args:?}: {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A header declaring more key-value pairs than the reader indexes (2^32, in a sparse file):
/// `validate` and `layout` cannot judge it and exit 2, saying why; never "valid".
#[test]
fn counts_beyond_the_readers_index_exit_2() {
    let mut b = b"GGUF\x03\0\0\0".to_vec();
    b.extend(0u64.to_le_bytes());
    b.extend((1u64 << 32).to_le_bytes());
    b.extend([0; 16]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.gguf");
    if !ggufkit_testkit::sparse::sparse_file(&p, &b, (1u64 << 32) * 13 + 64) {
        return;
    }
    for cmd in [&["validate"][..], &["validate", "--json"], &["layout"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_gguf"))
            .args(cmd)
            .arg(&p)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {err}");
        assert!(err.contains("4294967296 key-value pairs"), "{cmd:?}: {err}");
        assert!(
            !String::from_utf8_lossy(&out.stdout).contains("valid"),
            "{cmd:?}"
        );
    }
}
