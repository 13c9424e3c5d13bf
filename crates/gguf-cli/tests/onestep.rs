//! `gguf quantize HF_DIR OUT PRESET`: a Hugging Face checkpoint converted and quantized in one
//! pass must give the bytes of convert_hf_to_gguf.py followed by llama-quantize. For every tiny
//! checkpoint of the convert reference (scripts/hf_reference/make_checkpoints.py, whose script
//! outputs `ref/CASE.OUTTYPE.gguf` are the intermediate files), llama-quantize is run on the
//! script's file and the library's one step on the folder (the conversion opened once, then each
//! preset), and the files must be equal: Q4_K_M on every checkpoint; Q8_0, an i-quant preset
//! and Q4_K_M with an importance matrix, the type options, --pure and --outtype f16 on the two
//! small ones (with `GGUFKIT_ONESTEP_ALL=1`: Q8_0 on every checkpoint and the rest on four);
//! `gguf quantize HF_DIR` itself on the smallest. Skips (SKIPPED, and why) without the reference or llama-quantize.
//! The one step's peak memory is measured in child processes on two depths of a generated
//! checkpoint: it follows a chunk of rows, not a tensor nor the model.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::run;
use ggufkit::convert::{quantize_folder, Conversion, ConvertOptions};
use ggufkit::quantize::{self, Preset, QuantizeOptions, TensorTypeOverride};
use ggufkit::{GgmlType, Gguf};
use ggufkit_testkit::{checkpoint, reference};

/// The cases of the reference whose folder and script output at `outtype` exist.
fn cases(dir: &Path, outtype: &str) -> Vec<(String, PathBuf, PathBuf)> {
    let cases: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| {
            let c = c.as_str()?;
            let folder = dir.join("models").join(c);
            let script_out = dir.join("ref").join(format!("{c}.{outtype}.gguf"));
            (folder.is_dir() && script_out.is_file()).then(|| (c.to_string(), folder, script_out))
        })
        .collect()
}

/// A legacy (.dat) importance matrix for every matrix of `gguf` (ne0 × ne2 positive values,
/// different per tensor and column), as llama-imatrix writes one.
fn imatrix_for(gguf: &Path) -> Vec<u8> {
    let g = Gguf::open(gguf).unwrap();
    let mut entries = Vec::new();
    for t in g.tensors() {
        let shape = t.shape();
        if shape.len() < 2 || !t.name().ends_with(".weight") {
            continue;
        }
        let n = shape[0] * shape.get(2).copied().unwrap_or(1);
        let seed = t
            .name()
            .bytes()
            .fold(7u32, |h, b| h.wrapping_mul(31) ^ b as u32);
        let values: Vec<f32> = (0..n as u32)
            .map(|i| 0.05 + ((i.wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 250.0)
            .collect();
        entries.push((t.name().into_owned(), values));
    }
    let mut b = Vec::new();
    b.extend((entries.len() as i32).to_le_bytes());
    for (name, v) in &entries {
        b.extend((name.len() as i32).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend(1i32.to_le_bytes());
        b.extend((v.len() as i32).to_le_bytes());
        for x in v {
            b.extend(x.to_le_bytes());
        }
    }
    b.extend(8i32.to_le_bytes());
    b.extend(9i32.to_le_bytes());
    b.extend(b"calib.txt");
    b
}

/// Runs llama-quantize `extra... input output preset` in `dir`; its stderr's tail when it fails.
fn llama_quantize(
    lq: &Path,
    dir: &Path,
    extra: &[&str],
    input: &Path,
    out: &str,
    preset: &str,
) -> Result<(), String> {
    let o = Command::new(lq)
        .current_dir(dir)
        .args(extra)
        .arg(input)
        .arg(out)
        .arg(preset)
        .arg("2")
        .output()
        .map_err(|e| e.to_string())?;
    if o.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> = err.lines().rev().take(3).collect();
    Err(tail.join(" | "))
}

/// Where two files first differ, or `None` when they are equal.
fn first_difference(ours: &Path, theirs: &Path) -> Option<String> {
    let (a, b) = (fs::read(ours).unwrap(), fs::read(theirs).unwrap());
    if a == b {
        return None;
    }
    let at = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let (ga, gb) = (Gguf::open(ours).unwrap(), Gguf::open(theirs).unwrap());
    let keys = |g: &Gguf<'_>| -> Vec<(String, Vec<u8>)> {
        g.metadata()
            .map(|k| (k.key().into_owned(), k.raw.to_vec()))
            .collect()
    };
    let (ka, kb) = (keys(&ga), keys(&gb));
    if let Some((x, y)) = ka.iter().zip(&kb).find(|(x, y)| x != y) {
        return Some(format!(
            "byte {at}: pair '{}' where llama-quantize has '{}'",
            x.0, y.0
        ));
    }
    if ka.len() != kb.len() {
        return Some(format!("{} pairs, llama-quantize {}", ka.len(), kb.len()));
    }
    for (x, y) in ga.tensors().zip(gb.tensors()) {
        if x.name() != y.name() || x.type_id() != y.type_id() || x.data() != y.data() {
            return Some(format!(
                "byte {at}: tensor '{}' type {}, llama-quantize's '{}' type {}{}",
                x.name(),
                x.type_id(),
                y.name(),
                y.type_id(),
                if x.data() != y.data() {
                    " (data differ)"
                } else {
                    ""
                }
            ));
        }
    }
    Some(format!("byte {at} ({} and {} bytes)", a.len(), b.len()))
}

/// One comparison: llama-quantize on the script's file, and ours on the folder.
struct Case<'a> {
    name: &'a str,
    folder: &'a Path,
    script_out: &'a Path,
    preset: &'a str,
    /// Options given to both, in llama-quantize's spelling (which is `gguf quantize`'s).
    options: &'a [&'a str],
}

impl Case<'_> {
    fn label(&self, outtype: &str) -> String {
        format!(
            "{} --outtype {outtype} {} {}",
            self.name,
            self.preset,
            self.options.join(" ")
        )
    }
}

/// The library's options for `options` (the few of llama-quantize's this test uses).
fn quantize_options(preset: &str, options: &[&str]) -> QuantizeOptions {
    let mut q = QuantizeOptions::new(Preset::parse(preset).unwrap());
    let mut it = options.iter();
    while let Some(&o) = it.next() {
        match o {
            "--imatrix" => {
                let p = it.next().unwrap();
                q.use_imatrix(Path::new(p), p, &[], &[]).unwrap();
            }
            "--output-tensor-type" => {
                q.output_type = Some(GgmlType::parse(it.next().unwrap()).unwrap())
            }
            "--token-embedding-type" => {
                q.token_embedding_type = Some(GgmlType::parse(it.next().unwrap()).unwrap())
            }
            "--tensor-type" => q
                .tensor_types
                .push(TensorTypeOverride::parse(it.next().unwrap()).unwrap()),
            "--pure" => q.pure = true,
            "--leave-output-tensor" => q.leave_output = true,
            other => panic!("option {other} not handled here"),
        }
    }
    q
}

/// llama-quantize's output for `c`, written in `tmp`; `None` (a failure recorded) when it fails.
fn theirs(
    lq: &Path,
    tmp: &Path,
    c: &Case<'_>,
    label: &str,
    failures: &mut Vec<String>,
) -> Option<PathBuf> {
    let name = format!("{}.lq.gguf", label.replace([' ', '/', '='], "_"));
    match llama_quantize(lq, tmp, c.options, c.script_out, &name, c.preset) {
        Ok(()) => Some(tmp.join(name)),
        Err(e) => {
            failures.push(format!("{label}: llama-quantize failed: {e}"));
            None
        }
    }
}

/// Compares `ours` with `theirs` (both then removed); true when equal.
fn same(ours: &Path, theirs: &Path, label: &str, failures: &mut Vec<String>) -> bool {
    let d = first_difference(ours, theirs);
    let _ = fs::remove_file(ours);
    let _ = fs::remove_file(theirs);
    match d {
        Some(d) => {
            failures.push(format!("{label}: {d}"));
            false
        }
        None => true,
    }
}

/// The library's one step (`conversion` handed to the quantizer) against llama-quantize.
fn compare_library(
    lq: &Path,
    tmp: &Path,
    conversion: &Conversion,
    outtype: &str,
    c: &Case<'_>,
    failures: &mut Vec<String>,
) -> bool {
    let label = c.label(outtype);
    let Some(theirs) = theirs(lq, tmp, c, &label, failures) else {
        return false;
    };
    let q = quantize_options(c.preset, c.options);
    let ours = theirs.with_extension("ours.gguf");
    let input = conversion.input();
    let written = quantize::plan(input, &q)
        .and_then(|plan| quantize::quantize_file(input, &ours, &plan, &q, true, None));
    if let Err(e) = written {
        failures.push(format!("{label}: {e}"));
        return false;
    }
    same(&ours, &theirs, &label, failures)
}

/// `gguf quantize [--outtype T] OPTIONS HF_DIR OUT PRESET` against llama-quantize.
fn compare_cli(
    lq: &Path,
    tmp: &Path,
    outtype: &str,
    c: &Case<'_>,
    failures: &mut Vec<String>,
) -> bool {
    let label = format!("gguf quantize {}", c.label(outtype));
    let Some(theirs) = theirs(lq, tmp, c, &label, failures) else {
        return false;
    };
    let ours = theirs.with_extension("ours.gguf");
    let mut args = vec!["quantize", "--outtype", outtype];
    args.extend(c.options);
    args.extend([c.folder.to_str().unwrap(), ours.to_str().unwrap(), c.preset]);
    let (code, _, err) = run(tmp, &args);
    if code != 0 {
        failures.push(format!("{label}: gguf quantize failed: {err}"));
        return false;
    }
    same(&ours, &theirs, &label, failures)
}

/// Checkpoints of each kind quantized with every option under `GGUFKIT_ONESTEP_ALL=1`: one dense
/// (Llama 3), two MoE and a Gemma. (A debug build takes seconds per run on the ones with a large
/// vocabulary: by default every checkpoint gets Q4_K_M, and the options run on the small ones.)
const REPRESENTATIVE: [&str; 4] = [
    "llama3-bf16",
    "qwen3moe-bf16",
    "gemma3-bf16",
    "mixtral-bf16",
];

/// The checkpoints with a small vocabulary (quick in a debug build): one MoE, one dense.
const SMALL: [&str; 2] = ["mixtral-bf16", "llama2-spm-f16"];

#[test]
fn one_step_is_convert_then_llama_quantize() {
    let Some(dir) = reference::hf_checkpoints() else {
        return;
    };
    let Some(lq) = reference::llama_quantize() else {
        return;
    };
    let all = std::env::var_os("GGUFKIT_ONESTEP_ALL").is_some_and(|v| v == "1");
    let tmp = tempfile::tempdir().unwrap();
    let tmp = tmp.path();
    let mut failures = Vec::new();
    let mut compared = 0;
    for outtype in ["auto", "f16"] {
        for (name, folder, script_out) in cases(&dir, outtype) {
            let representative = if all {
                REPRESENTATIVE.contains(&name.as_str())
            } else {
                SMALL.contains(&name.as_str())
            };
            if outtype != "auto" && !representative {
                continue;
            }
            let opts = ConvertOptions {
                outtype: outtype.parse().unwrap(),
                ..ConvertOptions::default()
            };
            // a checkpoint our conversion refuses (an architecture not in the table yet) is listed
            let conversion = match Conversion::open(&folder, &opts) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("NOT COMPARED {name}: the conversion refuses it: {e}");
                    continue;
                }
            };
            let im = tmp.join(format!("{name}.{outtype}.imatrix.dat"));
            fs::write(&im, imatrix_for(&script_out)).unwrap();
            let im = im.to_str().unwrap().to_string();
            let mut runs: Vec<(&str, Vec<&str>)> = vec![("Q4_K_M", vec![])];
            if outtype == "auto" && (all || representative) {
                runs.push(("Q8_0", vec![]));
            }
            if representative && outtype == "auto" {
                runs.extend([
                    ("IQ2_XS", vec!["--imatrix", im.as_str()]),
                    ("Q4_K_M", vec!["--imatrix", im.as_str()]),
                    (
                        "Q5_K_S",
                        vec![
                            "--output-tensor-type",
                            "q8_0",
                            "--token-embedding-type",
                            "q4_0",
                            "--tensor-type",
                            "attn_v=q6_k",
                        ],
                    ),
                    ("Q4_0", vec!["--pure", "--leave-output-tensor"]),
                ]);
            }
            for (preset, options) in &runs {
                let c = Case {
                    name: &name,
                    folder: &folder,
                    script_out: &script_out,
                    preset,
                    options,
                };
                compared +=
                    compare_library(&lq, tmp, &conversion, outtype, &c, &mut failures) as usize;
            }
            // the command line, on the smallest of them
            if name == "mixtral-bf16" {
                for (preset, options) in [
                    ("Q4_K_M", vec![]),
                    (
                        "IQ2_XS",
                        vec!["--imatrix", im.as_str(), "--tensor-type", "ffn_down=q5_0"],
                    ),
                ] {
                    let c = Case {
                        name: &name,
                        folder: &folder,
                        script_out: &script_out,
                        preset,
                        options: &options,
                    };
                    compared += compare_cli(&lq, tmp, outtype, &c, &mut failures) as usize;
                }
            }
        }
    }
    eprintln!(
        "{compared} one-step quantizations identical with convert_hf_to_gguf.py + llama-quantize"
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared > 0, "nothing was compared");
}

/// What a folder input cannot do is said before anything is written.
#[test]
fn folder_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let (code, _, err) = run(tmp.path(), &["quantize", "empty", "out.gguf", "Q4_K_M"]);
    assert_ne!(code, 0);
    assert!(err.contains("no config.json"), "{err}");
    assert!(!tmp.path().join("out.gguf").exists());
    // --outtype converts a folder; a GGUF input refuses it
    let f = tmp.path().join("m.gguf");
    fs::write(&f, ggufkit_testkit::sample::tiny_llama().unwrap()).unwrap();
    let (code, _, err) = run(
        tmp.path(),
        &["quantize", "m.gguf", "out.gguf", "Q8_0", "--outtype", "f16"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("--outtype"), "{err}");
    assert!(!tmp.path().join("out.gguf").exists());
}

/// The child of [`one_step_peak_memory_is_flat`]: quantizes `GGUFKIT_ONESTEP_MEMORY_CHILD` (a
/// checkpoint folder) to Q8_0 in one step (only opens and plans its conversion with
/// `GGUFKIT_ONESTEP_MEMORY_PLAN_ONLY`: the process, its vocabulary and plan) and prints its own
/// peak resident set.
#[test]
fn one_step_memory_child() {
    let Some(dir) = std::env::var_os("GGUFKIT_ONESTEP_MEMORY_CHILD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let convert = ConvertOptions::default();
    if std::env::var_os("GGUFKIT_ONESTEP_MEMORY_PLAN_ONLY").is_some() {
        Conversion::open(&dir, &convert).expect("the conversion's plan");
    } else {
        let q = QuantizeOptions::new(Preset::parse("Q8_0").unwrap());
        quantize_folder(&dir, &dir.join("out.gguf"), &convert, &q, None, true, None)
            .expect("the one step");
    }
    checkpoint::print_own_peak();
}

/// The one step to Q8_0 on a checkpoint of 2 and of 16 blocks (the same largest tensor, a
/// 32.8 MB bf16 embedding, and twice the bytes), and its plan alone, each in a child process:
/// the peak grows by far less than the added bytes, and the tensors' share of it stays below
/// the largest tensor (made whole, as the one step did before it streamed, that tensor widened
/// to f32 was twice its size, and the peak followed it). No timing.
#[cfg(target_os = "linux")]
#[test]
fn one_step_peak_memory_is_flat() {
    let Some(p) = checkpoint::flat_peaks(
        "one_step_memory_child",
        "GGUFKIT_ONESTEP_MEMORY_CHILD",
        "GGUFKIT_ONESTEP_MEMORY_PLAN_ONLY",
    ) else {
        return;
    };
    p.print("one step to Q8_0", "the plan alone");
    let (grew, added) = p.growth();
    assert!(
        grew < added / 8,
        "peak grew by {grew} bytes for {added} more bytes of checkpoint"
    );
    let tensors = p.tensors();
    assert!(
        tensors < p.largest,
        "the tensors took {tensors} bytes at their peak for a largest tensor of {}",
        p.largest
    );
}
