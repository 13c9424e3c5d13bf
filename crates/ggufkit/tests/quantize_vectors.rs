//! `ggufkit::quantize` against llama-quantize's own outputs (`../shared/vectors/quantize/`):
//! the plan gives every tensor of every case the type llama-quantize gave it, in its order; the
//! outputs of every case, the importance-matrix ones included, have llama-quantize's bytes,
//! tensor by tensor and whole.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ggufkit::quantize::{self, Importance, ModelInfo, Preset, QuantizeOptions, TensorDesc};
use ggufkit::{GgmlType, Gguf};
use ggufkit_testkit::shared;
use serde_json::Value;
use sha2::{Digest, Sha256};

fn manifests() -> Option<Vec<(String, Value)>> {
    let dir = shared::find("vectors/quantize/manifests")?;
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Some(out)
}

/// The two sources' hyperparameters, as their metadata gives them (checked against the files
/// when they are present): the tiny llama and Gemma 3 270M.
fn model_of(source: &str) -> ModelInfo {
    match source {
        "tiny" => ModelInfo {
            arch: "llama".into(),
            n_layer: 1,
            n_head: 2,
            n_head_kv: 2,
            n_expert: 0,
        },
        "gemma3-f16" => ModelInfo {
            arch: "gemma3".into(),
            n_layer: 18,
            n_head: 4,
            n_head_kv: 1,
            n_expert: 0,
        },
        other => panic!("unknown source {other}"),
    }
}

fn ty(name: &str) -> GgmlType {
    GgmlType::from_name(name).unwrap_or_else(|| panic!("type {name}"))
}

/// The source's tensors, from a manifest of its output: both sources hold f16 weights and f32
/// 1-D tensors (norms), and list them in another order than the output (the planner sorts).
fn source_descs(m: &Value) -> Vec<TensorDesc> {
    let mut descs: Vec<TensorDesc> = m["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let shape: Vec<u64> = t["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            TensorDesc {
                shard: 0,
                index: 0,
                offset: 0,
                name: t["name"].as_str().unwrap().to_string(),
                ty: if shape.len() == 1 {
                    GgmlType::F32
                } else {
                    GgmlType::F16
                },
                shape,
            }
        })
        .collect();
    descs.reverse();
    for (i, d) in descs.iter_mut().enumerate() {
        d.index = i;
    }
    descs
}

fn options(m: &Value) -> QuantizeOptions {
    let mut opts = QuantizeOptions::new(Preset::parse(m["preset"].as_str().unwrap()).unwrap());
    if !m["imatrix"].is_null() {
        // the rules only ask whether there is one
        opts.importance = Some(Importance::new());
    }
    assert!(m["extra_args"].as_array().unwrap().is_empty());
    opts
}

#[test]
fn plans_give_llama_quantize_types_and_order() {
    let Some(all) = manifests() else { return };
    assert!(all.len() >= 10, "{} manifests", all.len());
    for (case, m) in &all {
        let source = m["source"].as_str().unwrap();
        let plan =
            quantize::plan_tensors(&source_descs(m), &model_of(source), Some(1), &options(m))
                .unwrap();
        let want = m["tensors"].as_array().unwrap();
        assert_eq!(plan.tensors.len(), want.len(), "{case}");
        for (p, w) in plan.tensors.iter().zip(want) {
            assert_eq!(p.name, w["name"].as_str().unwrap(), "{case}: order");
            assert_eq!(
                p.to,
                ty(w["type"].as_str().unwrap()),
                "{case}: {} ({})",
                p.name,
                p.reason
            );
            assert_eq!(
                p.bytes_out,
                w["nbytes"].as_u64().unwrap(),
                "{case}: {}",
                p.name
            );
        }
        assert_eq!(
            plan.file_type().map(u64::from),
            m["file_type"].as_u64(),
            "{case}"
        );
    }
}

#[test]
fn model_info_matches_the_sources() {
    if let Some(tiny) = shared::find("corpus/models/llama-2-tiny-random.gguf") {
        assert_eq!(ModelInfo::of(&Gguf::open(tiny).unwrap()), model_of("tiny"));
    }
    if let Some(g) = gemma_source() {
        assert_eq!(
            ModelInfo::of(&Gguf::open(g).unwrap()),
            model_of("gemma3-f16")
        );
    }
}

fn sha256(b: &[u8]) -> String {
    let d = Sha256::digest(b);
    d.iter().map(|x| format!("{x:02x}")).collect()
}

/// The imatrix file name as the manifests' commands give it (llama-quantize records it).
const IMATRIX_AS_GIVEN: &str = "gemma-3-270m-f16.imatrix.gguf";

/// Quantizes `src` as manifest `m` says and compares the output with it: every tensor's type,
/// offset and bytes, the metadata keys in order, the whole file.
fn check_case(case: &str, m: &Value, src: &Path, threads: usize) {
    let g = Gguf::open(src).unwrap();
    let mut opts = options(m);
    opts.threads = Some(threads);
    let plan = quantize::plan(&g, &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.gguf");
    quantize::quantize_file(&g, &out, &plan, &opts, false, None).unwrap();
    let q = Gguf::open(&out).unwrap();
    let keys: Vec<String> = q.metadata().map(|kv| kv.key().into_owned()).collect();
    let want_keys: Vec<&str> = m["metadata_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(keys, want_keys, "{case}: metadata order");
    assert_eq!(
        q.get_u64("general.file_type"),
        m["file_type"].as_u64(),
        "{case}"
    );
    assert_eq!(q.get_u64("general.quantization_version"), Some(2), "{case}");
    assert_eq!(
        q.data_offset(),
        m["tensor_data_offset"].as_u64().unwrap(),
        "{case}"
    );
    let want = m["tensors"].as_array().unwrap();
    assert_eq!(q.tensor_count(), want.len(), "{case}");
    let mut bad = Vec::new();
    for (t, w) in q.tensors().zip(want) {
        assert_eq!(t.name(), w["name"].as_str().unwrap(), "{case}");
        assert_eq!(
            t.ggml_type().unwrap(),
            ty(w["type"].as_str().unwrap()),
            "{case}: {}",
            t.name()
        );
        assert_eq!(
            t.offset(),
            w["offset"].as_u64().unwrap(),
            "{case}: {}",
            t.name()
        );
        if sha256(t.data().unwrap()) != w["sha256"].as_str().unwrap() {
            bad.push(format!("{} ({})", t.name(), t.ggml_type().unwrap()));
        }
    }
    assert!(
        bad.is_empty(),
        "{case}: {} tensors differ: {bad:?}",
        bad.len()
    );
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(
        bytes.len() as u64,
        m["file_size"].as_u64().unwrap(),
        "{case}"
    );
    assert_eq!(
        sha256(&bytes),
        m["sha256"].as_str().unwrap(),
        "{case}: whole file"
    );
}

#[test]
fn tiny_outputs_are_llama_quantize_bytes() {
    let Some(all) = manifests() else { return };
    let Some(src) = shared::find("corpus/models/llama-2-tiny-random.gguf") else {
        return;
    };
    let mut n = 0;
    for (case, m) in all.iter().filter(|(c, _)| c.starts_with("tiny.")) {
        check_case(case, m, &src, 2);
        n += 1;
    }
    assert_eq!(n, 5);
}

/// The F16 Gemma 3 llama-quantize started from: `gemma-3-270m-f16.gguf` beside the Q4_K_M
/// original (`ggufkit_testkit::reference::gemma`) when it is there, else made as the vectors'
/// README says: our `convert --type f16` of the original with `general.file_type` set to 1,
/// once, into the temporary folder. Checked by its sha256 either way.
fn gemma_source() -> Option<PathBuf> {
    const SHA: &str = "2fc5918b02d754e17a06566a9a3aaea876575e6a3d33800628a6f38546547d85";
    let orig = ggufkit_testkit::reference::gemma()?;
    let ready = orig.with_file_name("gemma-3-270m-f16.gguf");
    if ready.exists() {
        let bytes = std::fs::read(&ready).unwrap();
        assert_eq!(
            sha256(&bytes),
            SHA,
            "{} is not llama-quantize's F16 source",
            ready.display()
        );
        return Some(ready);
    }
    let made = std::env::temp_dir().join("ggufkit-quantize-gemma-3-270m-f16.gguf");
    // the tests of this file run on threads of one process: one of them makes the file
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _making = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    if !made.exists() {
        let g = Gguf::open(&orig).unwrap();
        let tmp = made.with_extension(format!("{}.part", std::process::id()));
        let opts = ggufkit::quantize::UniformOptions {
            ty: GgmlType::F16,
            all: false,
            endian: None,
        };
        let plan = ggufkit::quantize::plan_uniform(&g, opts).unwrap();
        ggufkit::quantize::convert_file(&g, &tmp, &plan, true, None).unwrap();
        let edits = [ggufkit::write::MetaEdit::Set(
            "general.file_type".into(),
            ggufkit::OwnedValue::U32(1),
        )];
        let f = Gguf::open(&tmp).unwrap();
        ggufkit::write::edit(f, &edits, ggufkit::write::EditTarget::InPlace, None).unwrap();
        std::fs::rename(&tmp, &made).unwrap();
    }
    let bytes = std::fs::read(&made).unwrap();
    assert_eq!(
        sha256(&bytes),
        SHA,
        "{} is not llama-quantize's F16 source",
        made.display()
    );
    Some(made)
}

#[test]
fn gemma_outputs_are_llama_quantize_bytes() {
    let Some(all) = manifests() else { return };
    let Some(src) = gemma_source() else { return };
    let cases: HashMap<&str, &Value> = all.iter().map(|(c, m)| (c.as_str(), m)).collect();
    for case in ["gemma3-f16.Q8_0", "gemma3-f16.Q4_K_M", "gemma3-f16.IQ4_XS"] {
        check_case(case, cases[case], &src, 2);
    }
}

#[test]
fn gemma_imatrix_outputs_are_llama_quantize_bytes() {
    let Some(all) = manifests() else { return };
    let Some(src) = gemma_source() else { return };
    let dir = shared::find("vectors/quantize").unwrap();
    let im = quantize::Imatrix::load(&dir.join(IMATRIX_AS_GIVEN)).unwrap();
    let cases: HashMap<&str, &Value> = all.iter().map(|(c, m)| (c.as_str(), m)).collect();
    for case in ["gemma3-f16.imatrix.Q4_K_M", "gemma3-f16.imatrix.IQ2_XXS"] {
        check_one_per_type(case, cases[case], &src, &im);
    }
}

/// Case `m` (an imatrix one) for the smallest tensor of each output type only, so that the
/// slow searches of the 2-bit i-quants stay quick in a debug build: the executor runs the plan
/// cut down to those tensors, and each one's bytes are compared with the manifest's. (The whole
/// imatrix Q4_K_M file is compared by gguf-cli's `quantize_cli` test, both whole files with
/// llama-quantize's by `scripts/bench_quantize.sh`.)
fn check_one_per_type(case: &str, m: &Value, src: &Path, im: &quantize::Imatrix) {
    let g = Gguf::open(src).unwrap();
    let mut opts = options(m);
    opts.threads = Some(2);
    opts.importance = Some(im.values.clone());
    opts.kv_overrides = im.metadata(IMATRIX_AS_GIVEN);
    let mut plan = quantize::plan(&g, &opts).unwrap();
    let mut smallest: HashMap<GgmlType, quantize::PlannedTensor> = HashMap::new();
    for t in &plan.tensors {
        let e = smallest.entry(t.to).or_insert_with(|| t.clone());
        if t.bytes_in < e.bytes_in {
            *e = t.clone();
        }
    }
    plan.tensors
        .retain(|t| smallest.get(&t.to).is_some_and(|s| s.name == t.name));
    let types: std::collections::HashSet<&str> = m["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    assert_eq!(plan.tensors.len(), types.len(), "{case}: one per type");
    let want: HashMap<&str, &str> = m["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["sha256"].as_str().unwrap()))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.gguf");
    quantize::quantize_file(&g, &out, &plan, &opts, false, None).unwrap();
    let q = Gguf::open(&out).unwrap();
    assert_eq!(q.tensor_count(), types.len());
    for t in q.tensors() {
        assert_eq!(
            sha256(t.data().unwrap()),
            want[&*t.name()],
            "{case}: {} ({})",
            t.name(),
            t.ggml_type().unwrap()
        );
    }
}

#[test]
fn imatrix_files_load_as_llama_quantize_reads_them() {
    let Some(dir) = shared::find("vectors/quantize") else {
        return;
    };
    let gg = quantize::Imatrix::load(&dir.join("gemma-3-270m-f16.imatrix.gguf")).unwrap();
    let dat = quantize::Imatrix::load(&dir.join("gemma-3-270m-f16.imatrix.dat")).unwrap();
    assert!(!gg.legacy && dat.legacy);
    assert_eq!(gg.values.len(), 126);
    assert_eq!(dat.values.len(), 126);
    assert_eq!(gg.datasets, ["calib.txt"]);
    assert_eq!(dat.datasets, ["calib.txt"]);
    assert_eq!((gg.chunk_count, dat.chunk_count), (8, 8));
    for (name, v) in &gg.values {
        let d = &dat.values[name];
        assert_eq!(v.len(), d.len(), "{name}");
        let close = v
            .iter()
            .zip(d)
            .all(|(a, b)| (a - b).abs() <= 1e-6 * a.abs().max(b.abs()));
        assert!(close, "{name}");
    }
    // the keys llama-quantize adds, as the imatrix Q4_K_M manifest lists them
    let m: Value = serde_json::from_slice(
        &std::fs::read(dir.join("manifests/gemma3-f16.imatrix.Q4_K_M.json")).unwrap(),
    )
    .unwrap();
    let added = m["metadata_changed"]["added"].as_object().unwrap();
    let meta = gg.metadata("gemma-3-270m-f16.imatrix.gguf");
    assert_eq!(meta.len(), added.len());
    for kv in &meta {
        let want = &added[&kv.key]["value"];
        match &kv.value {
            ggufkit::OwnedValue::String(s) => assert_eq!(want.as_str(), Some(s.as_str())),
            ggufkit::OwnedValue::U32(u) => assert_eq!(want.as_u64(), Some(u64::from(*u))),
            v => panic!("{v:?}"),
        }
    }
    // include / exclude
    let mut f = gg.clone();
    f.filter(&["attn_v".into()], &[]);
    assert_eq!(f.values.len(), 18);
    let mut f = gg.clone();
    f.filter(&[], &["ffn_".into()]);
    assert_eq!(f.values.len(), 126 - 54);
    // another model's matrix is refused
    let other = ["token_embd.weight", "blk.0.attn_qkv.weight"];
    assert!(gg.check_matches(Path::new("x"), other).is_err());
    // a truncated legacy file is a clear error
    let bytes = std::fs::read(dir.join("gemma-3-270m-f16.imatrix.dat")).unwrap();
    let e =
        ggufkit::quant::ImportanceMatrix::from_legacy_bytes(&bytes[..1000], Path::new("cut.dat"))
            .unwrap_err();
    assert!(e.to_string().starts_with("cut.dat: at byte "), "{e}");
}

/// With the importance matrix, the plan and the header (metadata order, data offset) are
/// llama-quantize's, and the executor accepts every tensor of the plan.
#[test]
fn imatrix_headers_are_llama_quantize_headers() {
    let Some(dir) = shared::find("vectors/quantize") else {
        return;
    };
    let Some(src) = gemma_source() else { return };
    let g = Gguf::open(&src).unwrap();
    let im = quantize::Imatrix::load(&dir.join("gemma-3-270m-f16.imatrix.gguf")).unwrap();
    for case in ["gemma3-f16.imatrix.Q4_K_M", "gemma3-f16.imatrix.IQ2_XXS"] {
        let m: Value = serde_json::from_slice(
            &std::fs::read(dir.join(format!("manifests/{case}.json"))).unwrap(),
        )
        .unwrap();
        let mut opts = options(&m);
        opts.importance = Some(im.values.clone());
        opts.kv_overrides = im.metadata("gemma-3-270m-f16.imatrix.gguf");
        let plan = quantize::plan(&g, &opts).unwrap();
        let b = quantize::output_builder(&g, &plan, &opts).unwrap();
        let keys: Vec<String> = b.keys().map(|k| k.into_owned()).collect();
        let want: Vec<&str> = m["metadata_order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(keys, want, "{case}");
        let (header, _) = b.header().unwrap();
        assert_eq!(
            header.len() as u64,
            m["tensor_data_offset"].as_u64().unwrap(),
            "{case}"
        );
        // every planned type, iq2_xxs included, can now be made with the matrix
        quantize::check(&g, &plan, &opts).unwrap();
    }
}
