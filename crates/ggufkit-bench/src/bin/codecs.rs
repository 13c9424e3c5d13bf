//! The codec comparison: ggufkit's `quant::dequantize` / `quantize_rows` beside ggml's
//! `to_float` / `ggml_quantize_chunk` (the `codec_bench` driver of `scripts/ggml-harness.sh`, a
//! subprocess), interleaved in one run, every type, with the bytes compared.
//!
//! ```text
//! cargo run --release -p ggufkit-bench --bin codecs -- [OPTIONS]
//!   --sizes LIST        element counts to dequantize, in Mi (default 1,64: cache- and DRAM-sized)
//!   --quant-sizes LIST  element counts to quantize, in Mi (default 1,64; at 64 Mi only the types
//!                       both sides quantize at 50 Mfloat/s or more at 1 Mi)
//!   --types LIST        comma-separated type names (default: every type)
//!   --rounds N          interleaved rounds (default 5 to dequantize, 3 to quantize)
//!   --batch-ms MS       each batch runs the codec enough times to last about MS (default 20)
//!   --best              the fastest round instead of the median (on a loaded machine, closer
//!                       to what the code can do; the median says what a user got)
//!   --no-dequant, --no-quant
//!   --smoke             a check, not a measurement: 4 rows, one round; exit 1 if any output
//!                       differs from ggml's
//! ```
//!
//! Each round times one batch of ggml's runs and one of ggufkit's (one thread), alternating which
//! goes first, then `dequantize_par` (all threads of rayon's pool, into the same output buffer as
//! the serial path: buffers of one size can differ in write speed); the figure is the median of
//! the rounds' per-run times (or the fastest, `--best`), as Gfloat/s (floats out of the decoder, into the encoder). The
//! ratio is ggufkit's speed over ggml's. `agree` compares the hash of every output byte of each
//! side (the parallel path against the serial one too). Inputs: valid blocks quantized by
//! ggufkit from a smooth pseudo-random signal (`ggufkit_bench::codec_input`); the DRAM-sized
//! input is the cache-sized one repeated. Before each dequantization table, the store ceiling:
//! how fast one thread fills that many floats with ordinary stores (a decoder near 100% of it
//! waits on its stores; one that streams past the cache can pass it, since it does not read the
//! lines it writes first), and the memory bandwidth of a copy on one thread and on all, against
//! which the parallel decoder's bytes per second are put. Without the driver it prints `SKIP:`
//! and exits 0.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ggufkit::{quant, Endian, GgmlType};
use ggufkit_bench::codec_input::{self, ROW};
use ggufkit_bench::ggml::{self, Ggml};
use ggufkit_bench::median;

/// The figure of a list of per-run times: the median, or the fastest with `--best`.
fn stat(o_best: bool, xs: &[f64]) -> Option<f64> {
    if o_best {
        xs.iter().copied().min_by(|a, b| a.total_cmp(b))
    } else {
        median(xs)
    }
}

const MI: usize = 1 << 20;

struct Opts {
    sizes: Vec<usize>,
    quant_sizes: Vec<usize>,
    types: Option<Vec<GgmlType>>,
    rounds: Option<usize>,
    batch_ms: f64,
    dequant: bool,
    quant: bool,
    smoke: bool,
    best: bool,
}

fn parse_list<T>(s: &str, f: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    s.split(',')
        .map(|x| f(x.trim()).ok_or_else(|| format!("bad list item `{x}`")))
        .collect()
}

fn parse_args(args: Vec<String>) -> Result<Opts, String> {
    let mut o = Opts {
        sizes: vec![MI, 64 * MI],
        quant_sizes: vec![MI, 64 * MI],
        types: None,
        rounds: None,
        batch_ms: 20.0,
        dequant: true,
        quant: true,
        smoke: false,
        best: false,
    };
    let mut it = args.into_iter();
    let mi = |x: &str| x.parse::<usize>().ok().map(|m| m * MI).filter(|&n| n > 0);
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--sizes" => o.sizes = parse_list(&val()?, mi)?,
            "--quant-sizes" => o.quant_sizes = parse_list(&val()?, mi)?,
            "--types" => o.types = Some(parse_list(&val()?, GgmlType::from_name)?),
            "--rounds" => o.rounds = Some(val()?.parse().map_err(|_| "bad --rounds")?),
            "--batch-ms" => o.batch_ms = val()?.parse().map_err(|_| "bad --batch-ms")?,
            "--no-dequant" => o.dequant = false,
            "--no-quant" => o.quant = false,
            "--smoke" => o.smoke = true,
            "--best" => o.best = true,
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument `{a}`")),
        }
    }
    if o.smoke {
        o.sizes = vec![4 * ROW];
        o.quant_sizes = vec![4 * ROW];
        o.rounds = Some(1);
        o.batch_ms = 0.0;
    }
    Ok(o)
}

/// A scratch folder for the inputs handed to ggml: in memory (`/dev/shm`) when there is one.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() {
            base.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let d = base.join(format!("ggufkit-codecs-{}", std::process::id()));
        std::fs::create_dir_all(&d)?;
        Ok(Scratch(d))
    }

    fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn f32_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Runs `f` `reps` times; nanoseconds per run.
fn time_ours(reps: u32, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_nanos() as f64 / f64::from(reps)
}

/// How many runs make a batch of about `batch_ms`, from one run's nanoseconds.
fn reps_for(batch_ms: f64, ns: f64) -> u32 {
    ((batch_ms * 1e6 / ns.max(1.0)).ceil() as u32).clamp(1, 100_000)
}

fn gfloats(n: usize, ns: Option<f64>) -> Option<f64> {
    ns.map(|ns| n as f64 / ns)
}

/// A rate in Gfloat/s, printed in `unit` (1 for Gfloat/s, 1000 for Mfloat/s) to three
/// significant digits.
fn fmt_rate(g: Option<f64>, unit: f64) -> String {
    match g.map(|g| g * unit) {
        None => "—".into(),
        Some(g) if g >= 100.0 => format!("{g:.0}"),
        Some(g) if g >= 10.0 => format!("{g:.1}"),
        Some(g) => format!("{g:.2}"),
    }
}

fn fmt_ratio(ours: Option<f64>, theirs: Option<f64>) -> String {
    match (ours, theirs) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".into(),
    }
}

fn size_name(n: usize) -> String {
    if n.is_multiple_of(MI) {
        format!("{} Mi", n / MI)
    } else {
        format!("{n}")
    }
}

struct DeqRow {
    ty: GgmlType,
    ggml: Option<f64>,
    ours: f64,
    par: f64,
    agree: Option<bool>,
    par_agree: bool,
}

fn dequant_one(
    g: &mut Ggml,
    scratch: &Scratch,
    ty: GgmlType,
    data: &[u8],
    n: usize,
    o: &Opts,
) -> Result<DeqRow, String> {
    let path = scratch.write("blocks.bin", data)?;
    let has_ggml = g.load_blocks(ty.id(), n, &path)?;
    let _ = std::fs::remove_file(&path);
    // One output for both paths: two buffers of the same size can differ in speed on a virtual
    // machine (one run here had every write to the second 3x slower), which `par/1t` would
    // then report as the pool's doing.
    let mut out = vec![0f32; n];
    let run = |out: &mut [f32]| {
        quant::dequantize(ty, std::hint::black_box(data), Endian::Little, out).expect("dequantize")
    };
    let run_par = |out: &mut [f32]| {
        quant::dequantize_par(ty, std::hint::black_box(data), Endian::Little, out)
            .expect("dequantize_par")
    };
    // one warm-up run each, which also sizes the batches
    let ours1 = time_ours(1, || run(&mut out));
    let par1 = time_ours(1, || run_par(&mut out));
    let theirs1 = if has_ggml {
        Some(g.dequantize(1)?.ns as f64)
    } else {
        None
    };
    let r_ours = reps_for(o.batch_ms, ours1);
    let r_par = reps_for(o.batch_ms, par1);
    let r_theirs = theirs1.map(|t| reps_for(o.batch_ms, t));
    let rounds = o.rounds.unwrap_or(5);
    let (mut a, mut p, mut t) = (Vec::new(), Vec::new(), Vec::new());
    let mut hash = None;
    for round in 0..rounds {
        for step in 0..2 {
            if (round + step) % 2 == 0 {
                a.push(time_ours(r_ours, || run(&mut out)));
            } else if let Some(r) = r_theirs {
                let tm = g.dequantize(r)?;
                hash = Some(tm.hash);
                t.push(tm.ns as f64 / f64::from(r));
            }
        }
        p.push(time_ours(r_par, || run_par(&mut out)));
    }
    run(&mut out);
    let ours_hash = ggml::hash64_f32(&out);
    out.fill(f32::NAN);
    run_par(&mut out);
    let par_hash = ggml::hash64_f32(&out);
    Ok(DeqRow {
        ty,
        ggml: gfloats(n, stat(o.best, &t)),
        ours: n as f64 / stat(o.best, &a).unwrap_or(f64::NAN),
        par: n as f64 / stat(o.best, &p).unwrap_or(f64::NAN),
        agree: hash.map(|h| h == ours_hash),
        par_agree: par_hash == ours_hash,
    })
}

/// How fast ordinary stores write `n` floats here: Gfloat/s of filling them with a value
/// (vector stores, nothing read), the same rounds as the decoders. A decoder with ordinary
/// stores cannot pass it; one with non-temporal stores can, at sizes no cache holds.
fn store_ceiling(n: usize, o: &Opts) -> f64 {
    let mut out = vec![0f32; n];
    let fill = |out: &mut [f32]| {
        out.fill(std::hint::black_box(1.5));
        std::hint::black_box(&*out);
    };
    let reps = reps_for(o.batch_ms, time_ours(1, || fill(&mut out)));
    let times: Vec<f64> = (0..o.rounds.unwrap_or(5))
        .map(|_| time_ours(reps, || fill(&mut out)))
        .collect();
    n as f64 / stat(o.best, &times).unwrap_or(f64::NAN)
}

/// The memory bandwidth a decoder can use at this size: GB/s (bytes read plus bytes written)
/// of copying `n` floats with `copy_from_slice` (the C library's `memcpy`, which streams past
/// the cache at large sizes), on the calling thread alone or, with `parallel`, split among the
/// threads of rayon's pool as `dequantize_par` splits its work; the same rounds as the decoders.
fn copy_bandwidth(n: usize, parallel: bool, o: &Opts) -> f64 {
    use rayon::prelude::*;
    let src = vec![1.5f32; n];
    let mut dst = vec![0f32; n];
    let part = n.div_ceil(rayon::current_num_threads().max(1));
    let mut copy = || {
        if parallel {
            dst.par_chunks_mut(part)
                .zip(src.par_chunks(part))
                .for_each(|(d, x)| d.copy_from_slice(std::hint::black_box(x)));
        } else {
            dst.copy_from_slice(std::hint::black_box(&src));
        }
    };
    let reps = reps_for(o.batch_ms, time_ours(1, &mut copy));
    let times: Vec<f64> = (0..o.rounds.unwrap_or(5))
        .map(|_| time_ours(reps, &mut copy))
        .collect();
    8.0 * n as f64 / stat(o.best, &times).unwrap_or(f64::NAN)
}

fn dequant_table(
    g: &mut Ggml,
    scratch: &Scratch,
    types: &[GgmlType],
    o: &Opts,
) -> Result<bool, String> {
    let mut all_agree = true;
    let base_n = o.sizes.iter().copied().min().unwrap_or(MI).min(MI);
    for &n in &o.sizes {
        println!(
            "\nDequantization, {} elements (Gfloat/s out; {} of {} interleaved rounds; par = `dequantize_par` on {} threads):\n",
            size_name(n),
            if o.best { "fastest" } else { "median" },
            o.rounds.unwrap_or(5),
            threads()
        );
        let ceiling = store_ceiling(n, o);
        println!(
            "Store ceiling (filling {} floats, one thread): {} Gfloat/s; the columns `of ceiling` \
             give each decoder's share of it.\n",
            size_name(n),
            fmt_rate(Some(ceiling), 1.0)
        );
        let bandwidth = copy_bandwidth(n, true, o);
        println!(
            "Memory bandwidth (copying {} floats, bytes read + written): {:.1} GB/s on one thread, \
             {:.1} GB/s on {} threads; `par GB/s` is the blocks read plus the floats written per \
             second by `dequantize_par`, `of bandwidth` its share of the {}-thread copy's.\n",
            size_name(n),
            copy_bandwidth(n, false, o),
            bandwidth,
            threads(),
            threads()
        );
        println!("| type | ggml to_float | ggufkit | ratio | ggml of ceiling | ggufkit of ceiling | ggufkit par | par/1t | par GB/s | of bandwidth | agree |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        let share = |g: Option<f64>| {
            g.map_or("—".to_string(), |g| {
                format!("{:.0}%", 100.0 * g / ceiling)
            })
        };
        for &ty in types.iter().filter(|&&t| quant::can_dequantize(t)) {
            let Some(base) = codec_input::blocks(ty, base_n.max(ty.block_size() as usize)) else {
                continue;
            };
            let data = if n > base_n && n.is_multiple_of(base_n) {
                codec_input::repeat(&base, n / base_n)
            } else if n == base_n {
                base
            } else {
                match codec_input::blocks(ty, n) {
                    Some(b) => b,
                    None => continue,
                }
            };
            let r = dequant_one(g, scratch, ty, &data, n, o)?;
            let agree = match r.agree {
                Some(true) if r.par_agree => "yes",
                Some(false) => "**NO**",
                None if r.par_agree => "(no ggml)",
                _ => "**NO** (par)",
            };
            all_agree &= r.agree != Some(false) && r.par_agree;
            // bytes in and out per float, times Gfloat/s: GB/s
            let par_gbs = r.par * (data.len() as f64 / n as f64 + 4.0);
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.0}% | {} |",
                r.ty.name(),
                fmt_rate(r.ggml, 1.0),
                fmt_rate(Some(r.ours), 1.0),
                fmt_ratio(Some(r.ours), r.ggml),
                share(r.ggml),
                share(Some(r.ours)),
                fmt_rate(Some(r.par), 1.0),
                fmt_ratio(Some(r.par), Some(r.ours)),
                par_gbs,
                100.0 * par_gbs / bandwidth,
                agree
            );
        }
    }
    Ok(all_agree)
}

struct QuantRun {
    ggml: Option<f64>,
    ours: f64,
    agree: Option<bool>,
}

fn quant_one(
    g: &mut Ggml,
    ty: GgmlType,
    src: &[f32],
    imp: Option<&[f32]>,
    rounds: usize,
    batch_ms: f64,
    best: bool,
) -> Result<QuantRun, String> {
    let n = src.len();
    let bytes = ty.bytes_for(n as u64).ok_or("size")? as usize;
    let mut out = vec![0u8; bytes];
    let run = |out: &mut [u8]| {
        quant::quantize_rows(ty, std::hint::black_box(src), ROW, imp, out).expect("quantize_rows")
    };
    let ours1 = time_ours(1, || run(&mut out));
    let Some(theirs1) = g.quantize(ty.id(), ROW, 1)? else {
        return Ok(QuantRun {
            ggml: None,
            ours: n as f64 / ours1,
            agree: None,
        });
    };
    let r_ours = reps_for(batch_ms, ours1);
    let r_theirs = reps_for(batch_ms, theirs1.ns as f64);
    let (mut a, mut t) = (Vec::new(), Vec::new());
    let mut hash = theirs1.hash;
    for round in 0..rounds {
        for step in 0..2 {
            if (round + step) % 2 == 0 {
                a.push(time_ours(r_ours, || run(&mut out)));
            } else {
                let tm = g
                    .quantize(ty.id(), ROW, r_theirs)?
                    .ok_or("ggml: no quantizer")?;
                hash = tm.hash;
                t.push(tm.ns as f64 / f64::from(r_theirs));
            }
        }
    }
    Ok(QuantRun {
        ggml: gfloats(n, stat(best, &t)),
        ours: n as f64 / stat(best, &a).unwrap_or(f64::NAN),
        agree: Some(hash == ggml::hash64(&out)),
    })
}

fn quant_table(
    g: &mut Ggml,
    scratch: &Scratch,
    types: &[GgmlType],
    o: &Opts,
) -> Result<bool, String> {
    let mut all_agree = true;
    let imp = codec_input::importance();
    let imp_path = scratch.write("importance.f32", &f32_bytes(&imp))?;
    let rounds = o.rounds.unwrap_or(3);
    let types: Vec<GgmlType> = types
        .iter()
        .copied()
        .filter(|&t| quant::can_quantize_rows(t) && !t.is_integer())
        .collect();
    // the types fast enough to quantize at the larger sizes (measured at the smallest)
    let mut fast: Option<Vec<GgmlType>> = None;
    let mut sizes = o.quant_sizes.clone();
    sizes.sort_unstable();
    for &n in &sizes {
        let src = codec_input::signal(n, 7);
        let p = scratch.write("src.f32", &f32_bytes(&src))?;
        g.load_src(n, &p)?;
        let _ = std::fs::remove_file(&p);
        println!(
            "\nQuantization, {} elements in rows of {ROW} (Mfloat/s in; {} of {rounds} interleaved rounds; \
             ggufkit `quantize_rows`, ggml `ggml_quantize_chunk`; with importance: the types that read it):\n",
            size_name(n),
            if o.best { "fastest" } else { "median" },
        );
        println!("| type | ggml | ggufkit | ratio | agree | ggml, importance | ggufkit, importance | ratio | agree |");
        println!("|---|---:|---:|---:|---|---:|---:|---:|---|");
        let mut fast_here = Vec::new();
        for &ty in &types {
            if fast.as_ref().is_some_and(|f| !f.contains(&ty)) {
                continue;
            }
            g.set_importance(ROW, None)?;
            let plain = if quant::requires_importance(ty) {
                None
            } else {
                Some(quant_one(g, ty, &src, None, rounds, o.batch_ms, o.best)?)
            };
            let weighted = if quant::uses_importance(ty) {
                g.set_importance(ROW, Some(&imp_path))?;
                Some(quant_one(
                    g,
                    ty,
                    &src,
                    Some(&imp),
                    rounds,
                    o.batch_ms,
                    o.best,
                )?)
            } else {
                None
            };
            let is_fast = [&plain, &weighted].iter().all(|r| {
                r.as_ref()
                    .is_none_or(|r| r.ours >= 0.05 && r.ggml.is_none_or(|g| g >= 0.05))
            });
            if is_fast {
                fast_here.push(ty);
            }
            let cells = |r: &Option<QuantRun>| match r {
                None => ["—".to_string(), "—".into(), "—".into(), "—".into()],
                Some(r) => [
                    fmt_rate(r.ggml, 1000.0),
                    fmt_rate(Some(r.ours), 1000.0),
                    fmt_ratio(Some(r.ours), r.ggml),
                    match r.agree {
                        Some(true) => "yes".into(),
                        Some(false) => "**NO**".into(),
                        None => "(no ggml)".into(),
                    },
                ],
            };
            for r in [&plain, &weighted].into_iter().flatten() {
                all_agree &= r.agree != Some(false);
            }
            let (c1, c2) = (cells(&plain), cells(&weighted));
            println!(
                "| {} | {} | {} |",
                ty.name(),
                c1.join(" | "),
                c2.join(" | ")
            );
        }
        if fast.is_none() && !o.smoke {
            fast = Some(fast_here);
        }
    }
    g.set_importance(ROW, None)?;
    Ok(all_agree)
}

fn threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn run(o: &Opts) -> Result<bool, String> {
    let Some(driver) = ggml::driver_path() else {
        println!(
            "SKIP: ggml's codec_bench is absent (build it with scripts/ggml-harness.sh, or set \
             GGUFKIT_GGML_CODEC_BENCH); nothing compared"
        );
        return Ok(true);
    };
    let mut g = Ggml::spawn(&driver).map_err(|e| format!("{}: {e}", driver.display()))?;
    let scratch = Scratch::new().map_err(|e| format!("scratch folder: {e}"))?;
    let types: Vec<GgmlType> = match &o.types {
        Some(t) => t.clone(),
        None => GgmlType::supported().collect(),
    };
    println!(
        "ggml: {} (ggml-base of the llama-cpp-python sdist); load average at start: {}",
        driver.display(),
        loadavg()
    );
    let mut ok = true;
    if o.dequant {
        ok &= dequant_table(&mut g, &scratch, &types, o)?;
    }
    if o.quant {
        ok &= quant_table(&mut g, &scratch, &types, o)?;
    }
    println!("\nload average at end: {}", loadavg());
    Ok(ok)
}

fn main() {
    let o = match parse_args(std::env::args().skip(1).collect()) {
        Ok(o) => o,
        Err(e) => {
            let doc = include_str!("codecs.rs");
            let usage: String = doc
                .lines()
                .skip_while(|l| !l.starts_with("//! ```text"))
                .skip(1)
                .take_while(|l| !l.starts_with("//! ```"))
                .map(|l| format!("{}\n", l.trim_start_matches("//!").trim_start_matches(' ')))
                .collect();
            if e.is_empty() {
                print!("{usage}");
                return;
            }
            eprintln!("codecs: {e}\n{usage}");
            std::process::exit(2);
        }
    };
    match run(&o) {
        Ok(true) => {}
        Ok(false) => {
            eprintln!("codecs: some outputs differ from ggml's");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("codecs: {e}");
            std::process::exit(1);
        }
    }
}
