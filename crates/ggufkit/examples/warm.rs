use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for path in &args {
        let data = std::fs::read(path).unwrap();
        let mut t = Vec::new();
        for _ in 0..40 {
            let s = Instant::now();
            let g = ggufkit::Gguf::from_bytes(&data).unwrap();
            std::hint::black_box(&g);
            t.push(s.elapsed().as_secs_f64() * 1e3);
        }
        t.sort_by(|a, b| a.total_cmp(b));
        println!("{path}: warm open median {:.3}", t[20]);
    }
}
