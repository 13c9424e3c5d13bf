//! `ggufkit::export`: .npy and .safetensors read back (headers, shapes, offsets, dtypes, values
//! bit for bit against ggml's dequantization vectors), memory and file exports equal, and
//! refusals that leave no file behind.

use std::path::{Path, PathBuf};

use ggufkit::export::{save_npy, save_safetensors, write_npy, write_safetensors, Dtype};
use ggufkit::{quant, Error, GgmlType, Gguf, GgufBuilder, ReadOptions};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf")
}

/// The dict of a .npy file and its data, after checking magic, version and alignment.
fn npy(bytes: &[u8]) -> (String, &[u8]) {
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + len) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + len])
        .unwrap()
        .to_string();
    (header, &bytes[10 + len..])
}

/// The JSON header of a .safetensors file and its data.
fn safetensors(bytes: &[u8]) -> (serde_json::Value, &[u8]) {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    assert_eq!(n % 8, 0);
    let h = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    (h, &bytes[8 + n..])
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn npy_of_ggml_vectors_is_bit_exact() {
    let Some(dir) = ggufkit_testkit::shared::find("vectors/dequant") else {
        return;
    };
    let mut checked = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "gguf") {
            continue;
        }
        let g = Gguf::open(&path).unwrap();
        let t = g.tensor("case0.input").unwrap();
        let mut out = Vec::new();
        write_npy(&mut out, &t, t.data().unwrap()).unwrap();
        let (header, data) = npy(&out);
        assert!(header.contains("'descr': '<f4'"), "{header}");
        assert!(header.contains("'shape': (4, 512)"), "{header}");
        let want = g.tensor("case0.expected").unwrap().data().unwrap();
        let same = f32s(data)
            .iter()
            .zip(f32s(want))
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 28, "{checked}");
}

#[test]
fn safetensors_of_the_sample_in_every_dtype() {
    let g = Gguf::open(sample()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for dtype in [Dtype::F32, Dtype::F16, Dtype::Bf16] {
        let target = dir.path().join("m.safetensors");
        save_safetensors(&g, dtype, &target, true).unwrap();
        let file = std::fs::read(&target).unwrap();
        let mut memory = Vec::new();
        write_safetensors(&mut memory, &g, dtype).unwrap();
        assert!(file == memory, "{dtype:?}: file and memory exports differ");

        let (h, data) = safetensors(&file);
        assert_eq!(h["__metadata__"]["general.architecture"], "llama");
        assert_eq!(
            h["__metadata__"]["llama.block_count"],
            g.get_u32("llama.block_count").unwrap().to_string()
        );
        let mut end = 0u64;
        for t in g.tensors() {
            let e = &h[t.name().as_ref()];
            assert_eq!(e["dtype"], dtype.safetensors_name());
            let shape: Vec<u64> = t.shape().iter().rev().copied().collect();
            assert_eq!(e["shape"], serde_json::json!(shape));
            let offs = e["data_offsets"].as_array().unwrap();
            let (a, b) = (offs[0].as_u64().unwrap(), offs[1].as_u64().unwrap());
            assert_eq!(a, end, "{}", t.name());
            assert_eq!(b - a, t.n_elements() * dtype.size());
            end = b;
            // every value as ggml's dequantization gives it, then rounded to the dtype
            let values =
                quant::dequantize_to_vec(t.ggml_type().unwrap(), t.data().unwrap(), t.endian())
                    .unwrap();
            let want: Vec<u8> = match dtype {
                Dtype::F32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
                Dtype::F16 => values
                    .iter()
                    .flat_map(|&v| quant::f32_to_f16(v).to_le_bytes())
                    .collect(),
                Dtype::Bf16 => values
                    .iter()
                    .flat_map(|&v| quant::f32_to_bf16(v).to_le_bytes())
                    .collect(),
            };
            assert!(data[a as usize..b as usize] == want[..], "{}", t.name());
        }
        assert_eq!(end, data.len() as u64);
    }
}

#[test]
fn integer_tensors_keep_their_dtype() {
    let mut b = GgufBuilder::new();
    let ints: Vec<u8> = [-3i16, 0, 7, 300, -32768, 32767]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    b.add_tensor_with_data("idx", GgmlType::I16, &[3, 2], &ints)
        .unwrap();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let t = g.tensor("idx").unwrap();
    let mut out = Vec::new();
    write_npy(&mut out, &t, t.data().unwrap()).unwrap();
    let (header, data) = npy(&out);
    assert!(header.contains("'descr': '<i2'") && header.contains("'shape': (2, 3)"));
    assert_eq!(data, &ints[..]);
    let mut st = Vec::new();
    write_safetensors(&mut st, &g, Dtype::Bf16).unwrap();
    let (h, data) = safetensors(&st);
    assert_eq!(h["idx"]["dtype"], "I16");
    assert_eq!(data, &ints[..]);
}

#[test]
fn refusals_leave_no_file_behind() {
    let g = Gguf::open(sample()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let t = g.tensor("blk.0.attn_norm.weight").unwrap();

    // an existing target is kept without `overwrite`
    let target = dir.path().join("x.npy");
    std::fs::write(&target, b"keep").unwrap();
    assert!(save_npy(&t, t.data().unwrap(), &target, false).is_err());
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    save_npy(&t, t.data().unwrap(), &target, true).unwrap();
    let written = std::fs::read(&target).unwrap();
    let (header, data) = npy(&written);
    assert!(header.contains("'shape': (64,)"));
    assert_eq!(data, t.data().unwrap());

    // bytes that are not the tensor's size
    let other = dir.path().join("short.npy");
    match save_npy(&t, &t.data().unwrap()[4..], &other, false) {
        Err(Error::TensorDataLength {
            tensor,
            expected,
            found,
        }) => assert_eq!(
            (tensor.as_str(), expected, found),
            (t.name().as_ref(), 256, 252)
        ),
        r => panic!("{r:?}"),
    }
    assert!(!other.exists());

    // a tensor without data: nothing is written at all
    let mut bytes = std::fs::read(sample()).unwrap();
    bytes.truncate(bytes.len() - 10);
    let cut = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    let st = dir.path().join("cut.safetensors");
    match save_safetensors(&cut, Dtype::F32, &st, false) {
        Err(Error::TensorDataMissing { tensor, .. }) => assert_eq!(tensor, "output_norm.weight"),
        r => panic!("{r:?}"),
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["x.npy"]);
}

/// The values in memory are the .npy file's values, bit for bit, for every tensor of the sample
/// and of both byte orders, integers in their own type.
#[test]
fn tensor_values_are_the_npy_values() {
    use ggufkit::export::{tensor_values, TensorValues};
    let le = std::fs::read(sample()).unwrap();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "x").unwrap();
    let ints: Vec<u8> = (0..16i32).flat_map(|v| (v * -7).to_be_bytes()).collect();
    b.endian(ggufkit::Endian::Big);
    b.add_tensor_with_data("ints", GgmlType::I32, &[8, 2], &ints)
        .unwrap();
    let be = b.to_vec().unwrap();
    let mut checked = 0;
    for bytes in [&le, &be] {
        let g = Gguf::from_bytes(bytes).unwrap();
        for t in g.tensors() {
            let data = t.data().unwrap();
            let mut file = Vec::new();
            write_npy(&mut file, &t, data).unwrap();
            let (_, want) = npy(&file);
            let got: Vec<u8> = match tensor_values(&t, data).unwrap() {
                TensorValues::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                TensorValues::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                TensorValues::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                TensorValues::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                TensorValues::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            };
            assert_eq!(got, want, "{}", t.name());
            checked += 1;
        }
    }
    let g = Gguf::from_bytes(&be).unwrap();
    let t = g.tensor("ints").unwrap();
    let TensorValues::I32(v) = tensor_values(&t, t.data().unwrap()).unwrap() else {
        panic!("i32 tensors stay i32");
    };
    assert_eq!(v[..3], [0, -7, -14]);
    assert!(checked > 2, "{checked}");
}

/// Counts what an export reports.
#[derive(Default)]
struct Counted {
    total: std::sync::atomic::AtomicU64,
    done: std::sync::atomic::AtomicU64,
}

impl ggufkit::progress::Progress for Counted {
    fn total(&self, bytes: u64) {
        self.total
            .store(bytes, std::sync::atomic::Ordering::Relaxed);
    }
    fn advance(&self, bytes: u64) {
        self.done
            .fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn exports_report_progress_in_tensor_bytes_up_to_their_total() {
    use std::sync::atomic::Ordering::Relaxed;
    let dir = tempfile::tempdir().unwrap();
    let g = Gguf::open(sample()).unwrap();
    for dtype in [Dtype::F32, Dtype::F16] {
        let p = Counted::default();
        let out = dir.path().join(format!("all-{dtype:?}.safetensors"));
        ggufkit::export::save_safetensors_with(&g, dtype, &out, false, &p).unwrap();
        assert_eq!(p.total.load(Relaxed), g.tensor_data_size());
        assert_eq!(p.done.load(Relaxed), g.tensor_data_size());
    }
    let t = g.tensors().next().unwrap();
    let p = Counted::default();
    let out = dir.path().join("one.npy");
    ggufkit::export::save_npy_with(&t, t.data().unwrap(), &out, false, &p).unwrap();
    assert_eq!(p.total.load(Relaxed), t.size());
    assert_eq!(p.done.load(Relaxed), t.size());
}
