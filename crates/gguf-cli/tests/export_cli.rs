//! `gguf export` as the contract fixes it: .npy and .safetensors contents, exit codes, error lines.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// `gguf export`, ready for its arguments.
fn export() -> Command {
    let mut c = Command::cargo_bin("gguf").unwrap();
    c.env("NO_COLOR", "1").arg("export");
    c
}

/// A little-endian GGUF v3 with one string key and the given tensors (name, type id, shape,
/// data), laid out with the default alignment of 32.
fn gguf_file(tensors: &[(&str, u32, &[u64], Vec<u8>)]) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend((tensors.len() as u64).to_le_bytes());
    b.extend(1u64.to_le_bytes());
    let key = "general.architecture";
    b.extend((key.len() as u64).to_le_bytes());
    b.extend(key.as_bytes());
    b.extend(8u32.to_le_bytes());
    b.extend(5u64.to_le_bytes());
    b.extend(b"llama");
    let mut offset = 0u64;
    for (name, ty, shape, data) in tensors {
        b.extend((name.len() as u64).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend((shape.len() as u32).to_le_bytes());
        for d in *shape {
            b.extend(d.to_le_bytes());
        }
        b.extend(ty.to_le_bytes());
        b.extend(offset.to_le_bytes());
        offset += (data.len() as u64).div_ceil(32) * 32;
    }
    while b.len() % 32 != 0 {
        b.push(0);
    }
    for (_, _, _, data) in tensors {
        b.extend(data);
        while b.len() % 32 != 0 {
            b.push(0);
        }
    }
    b
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Splits a .npy file into its header dict and its data.
fn npy(bytes: &[u8]) -> (String, &[u8]) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + len) % 64, 0, "header not aligned");
    let header = String::from_utf8(bytes[10..10 + len].to_vec()).unwrap();
    assert!(header.ends_with('\n'));
    (header, &bytes[10 + len..])
}

fn sample() -> Vec<u8> {
    let f32s: Vec<u8> = [1.5f32, -2.0, 0.25, f32::NAN, 3.0, -0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let i16s: Vec<u8> = [-3i16, 7, 32767]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    // one q8_0 block: d = 0.5 (f16 0x3800), q = 0..32
    let mut q8 = 0x3800u16.to_le_bytes().to_vec();
    q8.extend((0..32).map(|i| (i as i8 - 16) as u8));
    gguf_file(&[
        ("w", 0, &[3, 2], f32s),
        ("idx", 25, &[3], i16s),
        ("q", 8, &[32], q8),
    ])
}

#[test]
fn npy_export_of_float_int_and_quantized_tensors() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "s.gguf", &sample());

    let out = dir.path().join("w.npy");
    export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "w".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .assert()
        .code(0);
    let bytes = std::fs::read(&out).unwrap();
    let (header, data) = npy(&bytes);
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (2, 3)"),
        "{header}"
    );
    assert!(header.contains("'fortran_order': False"));
    let want: Vec<u8> = [1.5f32, -2.0, 0.25, f32::NAN, 3.0, -0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(data, &want[..]);

    let out = dir.path().join("idx.npy");
    export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "idx".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .assert()
        .code(0);
    let bytes = std::fs::read(&out).unwrap();
    let (header, data) = npy(&bytes);
    assert!(
        header.contains("'descr': '<i2'") && header.contains("'shape': (3,)"),
        "{header}"
    );
    assert_eq!(
        data,
        [-3i16, 7, 32767]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>()
    );

    let out = dir.path().join("q.npy");
    export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "q".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .assert()
        .code(0);
    let bytes = std::fs::read(&out).unwrap();
    let (_, data) = npy(&bytes);
    let want: Vec<u8> = (0..32)
        .flat_map(|i| ((i - 16) as f32 * 0.5).to_le_bytes())
        .collect();
    assert_eq!(data, &want[..]);
}

#[test]
fn safetensors_export_with_metadata_and_dtypes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "s.gguf", &sample());
    for (dtype, size) in [("f32", 4usize), ("f16", 2), ("bf16", 2)] {
        let out = dir.path().join(format!("m-{dtype}.safetensors"));
        export()
            .args([
                file.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
                "--dtype".as_ref(),
                dtype.as_ref(),
            ])
            .assert()
            .code(0);
        let bytes = std::fs::read(&out).unwrap();
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        assert_eq!(n % 8, 0);
        let h: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
        assert_eq!(h["__metadata__"]["general.architecture"], "llama");
        assert_eq!(h["w"]["dtype"], dtype.to_uppercase());
        assert_eq!(h["w"]["shape"], serde_json::json!([2, 3]));
        assert_eq!(h["w"]["data_offsets"], serde_json::json!([0, 6 * size]));
        assert_eq!(h["idx"]["dtype"], "I16");
        assert_eq!(
            h["idx"]["data_offsets"],
            serde_json::json!([6 * size, 6 * size + 6])
        );
        let q = &h["q"]["data_offsets"];
        assert_eq!(
            q[1].as_u64().unwrap() - q[0].as_u64().unwrap(),
            32 * size as u64
        );
        let data = &bytes[8 + n..];
        assert_eq!(data.len(), 6 * size + 6 + 32 * size);
        let first: Vec<u8> = match dtype {
            "f32" => 1.5f32.to_le_bytes().to_vec(),
            "f16" => 0x3e00u16.to_le_bytes().to_vec(),
            _ => 0x3fc0u16.to_le_bytes().to_vec(),
        };
        assert_eq!(&data[..size], &first[..], "{dtype}");
    }
}

#[test]
fn export_errors_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "s.gguf", &sample());
    let out = dir.path().join("x.npy");
    let a = export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "nope".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("s.gguf") && err.contains("nope") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!out.exists());

    // an existing output is refused without --force, and left untouched
    std::fs::write(&out, b"keep").unwrap();
    export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "w".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .assert()
        .code(2);
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    export()
        .args([
            file.as_os_str(),
            "--tensor".as_ref(),
            "w".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            "--force".as_ref(),
        ])
        .assert()
        .code(0);
    assert_ne!(std::fs::read(&out).unwrap(), b"keep");

    // a missing input, and a file that is not GGUF
    export()
        .args([
            dir.path().join("missing.gguf").as_os_str(),
            "-o".as_ref(),
            dir.path().join("m.safetensors").as_os_str(),
        ])
        .assert()
        .code(2);
    let junk = write(dir.path(), "junk.gguf", b"not a gguf file at all");
    let a = export()
        .args([
            junk.as_os_str(),
            "-o".as_ref(),
            dir.path().join("j.safetensors").as_os_str(),
        ])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains("junk.gguf: at byte 0"), "{err}");
    // no temporary files left behind
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty());
}

/// Every dequantization vector of ggml, through the command: the .npy data is `expected`, bit
/// for bit (NaN by class in case 3 only).
#[test]
fn npy_export_matches_ggml_vectors() {
    let Some(vectors) = ggufkit_testkit::shared::find("vectors/dequant") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&vectors)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gguf"))
        .collect();
    paths.sort();
    for path in paths {
        let g = ggufkit::Gguf::open(&path).unwrap();
        for case in [0, 3] {
            let out = dir.path().join(format!("{case}.npy"));
            export()
                .args([
                    path.as_os_str(),
                    "--tensor".as_ref(),
                    format!("case{case}.input").as_ref(),
                    "-o".as_ref(),
                    out.as_os_str(),
                    "--force".as_ref(),
                ])
                .assert()
                .code(0);
            let bytes = std::fs::read(&out).unwrap();
            let (header, data) = npy(&bytes);
            assert!(header.contains("'shape': (4, 512)"), "{header}");
            let want = g
                .tensor(&format!("case{case}.expected"))
                .unwrap()
                .data()
                .unwrap();
            assert_eq!(data.len(), want.len());
            for (i, (a, b)) in data.chunks_exact(4).zip(want.chunks_exact(4)).enumerate() {
                let (a, b) = (
                    f32::from_le_bytes(a.try_into().unwrap()),
                    f32::from_le_bytes(b.try_into().unwrap()),
                );
                let ok = a.to_bits() == b.to_bits() || (case == 3 && a.is_nan() && b.is_nan());
                assert!(
                    ok,
                    "{}: case{case} element {i}: {a:?} vs {b:?}",
                    path.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 56);
}

#[test]
fn the_format_is_the_extensions_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = ggufkit_testkit::fixtures::tiny_model().write(dir.path(), "tiny.gguf");
    let refused: [(&[&str], &str); 4] = [
        (
            &["--tensor", "token_embd.weight", "-o", "x.safetensors"],
            "--tensor exports one tensor as .npy",
        ),
        (&["-o", "all.npy"], "a .npy file holds one tensor"),
        (&["-o", "all.bin"], "the format is chosen by the extension"),
        (
            &["--tensor", "token_embd.weight", "-o", "x"],
            "the format is chosen by the extension",
        ),
    ];
    for (args, why) in refused {
        let mut a = vec!["export", f.as_str()];
        a.extend_from_slice(args);
        let (code, _, err) = common::run(dir.path(), &a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(why), "{a:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        let out = args[args.len() - 1];
        assert!(!dir.path().join(out).exists(), "{a:?} wrote {out}");
    }
    // the extension in any case
    let (code, _, err) = common::run(dir.path(), &["export", &f, "-o", "ALL.SafeTensors"]);
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(dir.path().join("ALL.SafeTensors")).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    assert!(std::str::from_utf8(&bytes[8..8 + n])
        .unwrap()
        .contains("token_embd.weight"));
    let (code, _, err) = common::run(
        dir.path(),
        &["export", &f, "--tensor", "output.weight", "-o", "o.NPY"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(dir.path().join("o.NPY"))
        .unwrap()
        .starts_with(b"\x93NUMPY"));
}
