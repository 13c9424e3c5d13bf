//! The differential test of `convert`: tiny random-weight Hugging Face checkpoints of every
//! architecture of the table (scripts/hf_reference/make_checkpoints.py) converted by llama.cpp's
//! convert_hf_to_gguf.py at every --outtype, and by ggufkit; the files must agree. Where they
//! differ the test names the first differing key or tensor.
#![cfg(feature = "convert")]

use std::path::{Path, PathBuf};

use ggufkit::convert::execute::convert_folder;
use ggufkit::convert::plan::ConvertOptions;
use ggufkit::convert::split::parse_split_size;
use ggufkit::convert::OutType;
use ggufkit::read::Gguf;
use ggufkit::shard::ShardedModel;
use ggufkit_testkit::checkpoint;
use ggufkit_testkit::compare::first_difference;
use ggufkit_testkit::reference;

/// Checkpoints the generator makes and the script converts whose architecture is not in our
/// table yet: each must be refused by name (never a wrong file), and is listed as not compared.
/// An entry that converts fails the test, so the list cannot outlive the gap.
const NOT_IN_THE_TABLE_YET: &[(&str, &str)] = &[];

#[test]
fn conversions_match_the_script() {
    let Some(dir) = reference::hf_checkpoints() else {
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in cases["cases"].as_array().unwrap() {
        let case = case.as_str().unwrap();
        let folder = dir.join("models").join(case);
        if !folder.is_dir() {
            continue;
        }
        for t in cases["outtypes"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            let reference = dir.join("ref").join(format!("{case}.{t}.gguf"));
            if !reference.is_file() {
                continue;
            }
            let opts = ConvertOptions {
                outtype: t.parse::<OutType>().unwrap(),
                ..Default::default()
            };
            let out = tmp.path().join(format!("{case}.{t}.gguf"));
            if let Some((_, class)) = NOT_IN_THE_TABLE_YET.iter().find(|(c, _)| *c == case) {
                match convert_folder(&folder, &out, &opts, true, None) {
                    Err(e)
                        if e.to_string()
                            .contains(&format!("'{class}' is not supported")) =>
                    {
                        eprintln!("NOT COMPARED {case} --outtype {t}: {class} is not in the architecture table yet");
                    }
                    Err(e) => {
                        failures.push(format!("{case} --outtype {t}: refused otherwise: {e}"))
                    }
                    Ok(_) => failures.push(format!(
                        "{case} --outtype {t}: converts now: take it out of NOT_IN_THE_TABLE_YET"
                    )),
                }
                continue;
            }
            if let Err(e) = convert_folder(&folder, &out, &opts, true, None) {
                failures.push(format!("{case} --outtype {t}: {e}"));
                continue;
            }
            let ours = Gguf::open(&out).unwrap();
            let theirs = Gguf::open(&reference).unwrap();
            compared += 1;
            if let Some(d) = first_difference(&ours, &theirs) {
                failures.push(format!("{case} --outtype {t}: {d}"));
            } else if std::fs::read(&out).unwrap() != std::fs::read(&reference).unwrap() {
                failures.push(format!(
                    "{case} --outtype {t}: the bytes differ (header padding)"
                ));
            }
        }
    }
    eprintln!("compared {compared} conversions");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The child of [`peak_memory_follows_the_largest_tensor`]: converts `GGUFKIT_MEMORY_CHILD`
/// (a checkpoint folder) to f16 (its vocabulary only with `GGUFKIT_MEMORY_VOCAB_ONLY`) and
/// prints its own peak resident set (`VmHWM`, KiB).
#[test]
fn memory_child() {
    let Some(dir) = std::env::var_os("GGUFKIT_MEMORY_CHILD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let opts = ConvertOptions {
        outtype: OutType::F16,
        vocab_only: std::env::var_os("GGUFKIT_MEMORY_VOCAB_ONLY").is_some(),
        ..Default::default()
    };
    convert_folder(&dir, &dir.join("out.gguf"), &opts, true, None).expect("convert");
    checkpoint::print_own_peak();
}

/// Converts a checkpoint of 2 and of 16 blocks in a child process each (the same largest
/// tensor, twice the bytes), and the vocabulary alone: the peak resident set grows by far less
/// than the added bytes, and the tensors' share of it stays below the largest tensor plus a few
/// chunks (the issue: peak memory bounded by the largest tensor, never the model). No timing.
#[cfg(target_os = "linux")]
#[test]
fn peak_memory_follows_the_largest_tensor() {
    let Some(p) = checkpoint::flat_peaks(
        "memory_child",
        "GGUFKIT_MEMORY_CHILD",
        "GGUFKIT_MEMORY_VOCAB_ONLY",
    ) else {
        return;
    };
    p.print("convert to f16", "the vocabulary alone");
    let (grew, added) = p.growth();
    assert!(
        grew < added / 4,
        "peak grew by {grew} bytes for {added} more bytes of checkpoint"
    );
    // above the process and its vocabulary: at most the largest tensor and a few chunks of
    // rows (holding a tensor widened to f32 and its output, as before streaming, is 3x)
    let tensors = p.tensors();
    assert!(
        tensors < p.largest + (32 << 20),
        "the tensors took {tensors} bytes at their peak for a largest tensor of {}",
        p.largest
    );
}

/// The split options of a case of the split reference, as `ConvertOptions`.
fn split_options(case: &serde_json::Value) -> ConvertOptions {
    let mut opts = ConvertOptions {
        outtype: case["outtype"]
            .as_str()
            .unwrap()
            .parse::<OutType>()
            .unwrap(),
        ..Default::default()
    };
    let args: Vec<&str> = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "--split-max-tensors" => opts.split_max_tensors = it.next().unwrap().parse().unwrap(),
            "--split-max-size" => {
                opts.split_max_size = parse_split_size(it.next().unwrap()).unwrap()
            }
            "--no-tensor-first-split" => opts.no_tensor_first_split = true,
            other => panic!("split reference: unknown argument {other}"),
        }
    }
    opts
}

/// The file names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The split reference (scripts/hf_reference/split_reference.py): convert_hf_to_gguf.py with
/// --split-max-tensors, --split-max-size (over expert stacks, quantized tensors, a limit below
/// every tensor) and --no-tensor-first-split, and a limit that leaves one file. Ours must have
/// the same file names and every shard the same bytes (a difference names the shard and its
/// first differing key or tensor), and the shards merged (`gguf merge`'s `ShardedModel`) must
/// be the unsplit conversion.
#[test]
fn split_conversions_match_the_script() {
    let Some(dir) = reference::hf_split_reference() else {
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut shards = 0;
    let cases = cases.as_object().unwrap();
    for (case, c) in cases {
        let folder = PathBuf::from(c["folder"].as_str().unwrap());
        let reference = dir.join(case);
        let out_dir = tmp.path().join(case);
        std::fs::create_dir(&out_dir).unwrap();
        let done = match convert_folder(
            &folder,
            &out_dir.join("model.gguf"),
            &split_options(c),
            false,
            None,
        ) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
        };
        let (ours, theirs) = (names_in(&out_dir), names_in(&reference));
        let reported: Vec<PathBuf> = done.files.iter().map(|f| f.path.clone()).collect();
        let listed: Vec<PathBuf> = ours.iter().map(|n| out_dir.join(n)).collect();
        assert_eq!(
            reported, listed,
            "{case}: the files reported are the files written"
        );
        if ours != theirs {
            failures.push(format!("{case}: files {ours:?}, the script's {theirs:?}"));
            continue;
        }
        for name in &ours {
            shards += 1;
            let (a, b) = (out_dir.join(name), reference.join(name));
            if std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap() {
                continue;
            }
            let d = first_difference(&Gguf::open(&a).unwrap(), &Gguf::open(&b).unwrap())
                .unwrap_or_else(|| "the bytes differ (header padding)".into());
            failures.push(format!("{case}: shard {name}: {d}"));
        }
        // gguf-split compatible: the shards merged are the unsplit conversion
        if done.files.len() > 1 {
            let mut single = split_options(c);
            single.split_max_size = 0;
            single.split_max_tensors = 0;
            single.no_tensor_first_split = false;
            let whole = out_dir.join("single.gguf");
            let merged = out_dir.join("merged.gguf");
            convert_folder(&folder, &whole, &single, false, None).unwrap();
            ShardedModel::open(&done.files[0].path)
                .and_then(|m| m.merge_to(&merged, false, None))
                .unwrap();
            if std::fs::read(&whole).unwrap() != std::fs::read(&merged).unwrap() {
                failures.push(format!(
                    "{case}: the shards merged are not the unsplit conversion"
                ));
            }
        }
    }
    eprintln!("compared {} split conversions, {shards} files", cases.len());
    assert!(!cases.is_empty(), "the split reference has no case");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A split conversion writes all its shards or none: a shard that exists already is refused
/// before anything is written, and a shard whose target appears while the others are written
/// fails at its rename, which takes the shards renamed before it away again.
#[test]
fn a_split_conversion_is_all_or_nothing() {
    let Some(dir) = reference::hf_split_reference() else {
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let case = &cases["llama2-spm-f16.tensors8"];
    let folder = PathBuf::from(case["folder"].as_str().expect("the tensors8 case"));
    let opts = split_options(case);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("model.gguf");
    let second = tmp.path().join("model-00002-of-00003.gguf");
    std::fs::write(&second, b"kept").unwrap();
    let e = convert_folder(&folder, &out, &opts, false, None).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(names_in(tmp.path()), ["model-00002-of-00003.gguf"]);
    assert_eq!(std::fs::read(&second).unwrap(), b"kept");
    std::fs::remove_file(&second).unwrap();

    let last = tmp.path().join("model-00003-of-00003.gguf");
    let late = last.clone();
    let mut once = false;
    let progress: ggufkit::write::ProgressFn = Box::new(move |_| {
        if !once {
            once = true;
            std::fs::write(&late, b"late").unwrap();
        }
    });
    let e = convert_folder(&folder, &out, &opts, false, Some(progress)).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(names_in(tmp.path()), ["model-00003-of-00003.gguf"]);
    assert_eq!(std::fs::read(&last).unwrap(), b"late");

    // and with every target free, the three shards
    std::fs::remove_file(&last).unwrap();
    let done = convert_folder(&folder, &out, &opts, false, None).unwrap();
    assert_eq!(done.files.len(), 3);
    assert_eq!(names_in(tmp.path()).len(), 3);
}
