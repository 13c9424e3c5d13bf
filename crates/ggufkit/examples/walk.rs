//! Opens and fully walks each file N times and prints the median: a quick check of the reader's
//! speed without criterion (`cargo run --release --example walk -- FILE... [-n N]`).

use std::time::Instant;

use ggufkit::{Gguf, Value, ValueType};

fn walk_value(v: &Value<'_>) -> u64 {
    match v {
        Value::String(s) => s.as_str().map_or(0, |s| s.len() as u64),
        Value::Array(a) => match a.element_type() {
            ValueType::String => a
                .strings()
                .map(|it| it.map(|s| s.as_str().map_or(0, |s| s.len() as u64)).sum())
                .unwrap_or(0),
            ValueType::F32 => a.typed::<f32>().map_or(0, |t| {
                t.iter()
                    .map(|x| x.to_bits() as u64)
                    .fold(0, u64::wrapping_add)
            }),
            ValueType::I32 => a
                .typed::<i32>()
                .map_or(0, |t| t.iter().map(|x| x as u64).fold(0, u64::wrapping_add)),
            ValueType::U32 => a
                .typed::<u32>()
                .map_or(0, |t| t.iter().map(u64::from).fold(0, u64::wrapping_add)),
            _ => a.iter().map(|v| walk_value(&v)).fold(0, u64::wrapping_add),
        },
        other => other.as_u64().unwrap_or(1),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 20;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    for path in &args {
        let mut times = Vec::new();
        let mut sum = 0u64;
        for _ in 0..n {
            let t = Instant::now();
            let g = Gguf::open(path)?;
            for kv in g.metadata() {
                sum = sum.wrapping_add(walk_value(&kv.value));
            }
            for t in g.tensors() {
                sum = sum.wrapping_add(t.n_elements() + t.offset());
            }
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{path}: median {:.3} ms, min {:.3} ms (checksum {sum})",
            times[n / 2],
            times[0]
        );
    }
    Ok(())
}
