//! The side-by-side comparison: ggufkit against candle, ggus, gguf-rs-lib and gguf-py, opening and
//! fully walking the same files, plus two floors.
//!
//! ```text
//! cargo run --release -p ggufkit-bench --bin compare -- [OPTIONS] FILE|DIR...
//!   -n N              repetitions per parser and file (default 20)
//!   --all             the standard set: corpus vocab/*, synthetic/bench_*, Gemma 3 270M when
//!                     present, and the stress files (generated into --stress-dir when absent)
//!   --stress-dir DIR  where the stress files are made (default target/ggufkit-bench)
//!   --generate DIR    write the stress files and the smoke file into DIR (then compare the FILEs,
//!                     if any were given)
//!   --smoke           CI mode: a tiny generated file, one repetition, every parser; fails when a
//!                     parser fails on it or walks it differently
//!   --parsers LIST    comma-separated subset of: ggufkit,ggufkit-open,ggus,candle,gguf-rs-lib,gguf-py,
//!                     floor-read,floor-map
//!   --python PATH     the Python with `gguf` installed (default $GGUF_PY, else python3)
//!   --no-python       leave gguf-py out
//!   --py-n N          runs of gguf-py per file (default: N); --py-budget SECS stops it early
//!                     once that much time went by (default 60; at least one run)
//!   --timeout SECS    limit for each child process (default 600)
//!   --json            JSON instead of the markdown tables
//!   --json-out FILE   also write the JSON to FILE
//! ```
//!
//! Times are taken in this process, interleaved: each repetition runs every file once with every
//! parser, in an order rotated at each repetition, so a slower or faster moment of a loaded
//! machine falls on all parsers alike. Peak memory is measured per parser: the runner re-executes
//! itself (`--one PARSER FILE HEADER_LEN`) and the child reports its `VmHWM`. The child run also
//! probes: a parser that fails or panics there (or crashes the child) is reported as a failure
//! with its error and is not timed. gguf-py runs in a Python subprocess that times its own runs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ggufkit_bench::gen::Generated;
use ggufkit_bench::parsers::header_len;
use ggufkit_bench::{files, median, peak_rss_kb, Parser, Stats};
use serde::{Deserialize, Serialize};
use serde_json::json;

const PY_SCRIPT: &str = include_str!("../../python/gguf_py_walk.py");
const GGUF_PY: &str = "gguf-py";

/// A column of the tables: an in-process parser or gguf-py.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Col {
    Rust(Parser),
    Py,
}

impl Col {
    fn name(self) -> &'static str {
        match self {
            Col::Rust(p) => p.name(),
            Col::Py => GGUF_PY,
        }
    }

    fn all() -> Vec<Col> {
        let mut v: Vec<Col> = Parser::ALL
            .iter()
            .filter(|p| !p.is_floor())
            .map(|&p| Col::Rust(p))
            .collect();
        v.push(Col::Py);
        v.extend(
            Parser::ALL
                .iter()
                .filter(|p| p.is_floor())
                .map(|&p| Col::Rust(p)),
        );
        v
    }

    fn from_name(s: &str) -> Option<Col> {
        if s == GGUF_PY {
            return Some(Col::Py);
        }
        Parser::from_name(s).map(Col::Rust)
    }
}

struct Opts {
    n: usize,
    inputs: Vec<PathBuf>,
    all: bool,
    stress_dir: PathBuf,
    generate: Option<PathBuf>,
    smoke: bool,
    cols: Vec<Col>,
    python: Option<String>,
    no_python: bool,
    py_n: Option<usize>,
    py_budget: f64,
    timeout: Duration,
    json: bool,
    json_out: Option<PathBuf>,
}

fn usage() -> ! {
    let doc: String = include_str!("compare.rs")
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim_start_matches(' '))
        .collect::<Vec<_>>()
        .join("\n");
    eprintln!("{doc}");
    std::process::exit(2)
}

fn parse_args(args: Vec<String>) -> Result<Opts, String> {
    let mut o = Opts {
        n: 20,
        inputs: Vec::new(),
        all: false,
        stress_dir: files::generated_dir(),
        generate: None,
        smoke: false,
        cols: Col::all(),
        python: None,
        no_python: false,
        py_n: None,
        py_budget: 60.0,
        timeout: Duration::from_secs(600),
        json: false,
        json_out: None,
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "-n" => o.n = val("-n")?.parse().map_err(|e| format!("-n: {e}"))?,
            "--all" => o.all = true,
            "--stress-dir" => o.stress_dir = PathBuf::from(val("--stress-dir")?),
            "--generate" => o.generate = Some(PathBuf::from(val("--generate")?)),
            "--smoke" => o.smoke = true,
            "--parsers" => {
                o.cols = val("--parsers")?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| Col::from_name(s).ok_or(format!("unknown parser {s}")))
                    .collect::<Result<_, _>>()?;
            }
            "--python" => o.python = Some(val("--python")?),
            "--no-python" => o.no_python = true,
            "--py-n" => o.py_n = Some(val("--py-n")?.parse().map_err(|e| format!("--py-n: {e}"))?),
            "--py-budget" => {
                o.py_budget = val("--py-budget")?
                    .parse()
                    .map_err(|e| format!("--py-budget: {e}"))?
            }
            "--timeout" => {
                let s: u64 = val("--timeout")?
                    .parse()
                    .map_err(|e| format!("--timeout: {e}"))?;
                o.timeout = Duration::from_secs(s);
            }
            "--json" => o.json = true,
            "--json-out" => o.json_out = Some(PathBuf::from(val("--json-out")?)),
            "-h" | "--help" => usage(),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => o.inputs.push(PathBuf::from(a)),
        }
    }
    if o.n == 0 {
        return Err("-n must be at least 1".into());
    }
    Ok(o)
}

/// What a child run (`--one`) reports.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Probe {
    ok: bool,
    error: Option<String>,
    stats: Option<Stats>,
    peak_kb: Option<u64>,
    ms: Option<f64>,
}

/// Child mode: run one parser once on one file and print a [`Probe`] as JSON.
fn run_one(parser: &str, path: &Path, header_len: u64) -> ! {
    // the panic message goes into the report, not to the terminal
    std::panic::set_hook(Box::new(|_| {}));
    let out = if parser == "none" {
        Probe {
            ok: true,
            peak_kb: peak_rss_kb(),
            ..Probe::default()
        }
    } else {
        let p = Parser::from_name(parser).unwrap_or_else(|| {
            eprintln!("unknown parser {parser}");
            std::process::exit(2)
        });
        let t = Instant::now();
        let r = p.run_catching(path, header_len);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let peak_kb = peak_rss_kb();
        match r {
            Ok(stats) => Probe {
                ok: true,
                error: None,
                stats: Some(stats),
                peak_kb,
                ms: Some(ms),
            },
            Err(e) => Probe {
                ok: false,
                error: Some(e),
                stats: None,
                peak_kb,
                ms: Some(ms),
            },
        }
    };
    println!("{}", serde_json::to_string(&out).expect("serializable"));
    std::process::exit(0)
}

/// Runs a command with a time limit; returns (stdout, stderr, status text) or an error text.
fn run_child(mut cmd: Command, timeout: Duration) -> Result<(String, String, String), String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    // read both pipes on threads so a chatty child never blocks on a full pipe
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting: {e}")),
        }
    };
    let out = t_out.join().unwrap_or_default();
    let err = t_err.join().unwrap_or_default();
    Ok((out, err, status.to_string()))
}

fn tail(s: &str, n: usize) -> String {
    let s = s.trim();
    let start = s.len().saturating_sub(n);
    let start = (start..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    s[start..].replace('\n', " / ")
}

fn probe(exe: &Path, parser: &str, file: &Path, hlen: u64, timeout: Duration) -> Probe {
    let mut cmd = Command::new(exe);
    cmd.arg("--one").arg(parser).arg(file).arg(hlen.to_string());
    match run_child(cmd, timeout) {
        Err(e) => Probe {
            error: Some(e),
            ..Probe::default()
        },
        Ok((out, err, status)) => match out
            .lines()
            .last()
            .and_then(|l| serde_json::from_str::<Probe>(l).ok())
        {
            Some(p) => p,
            None => Probe {
                error: Some(format!("crashed ({status}): {}", tail(&err, 300))),
                ..Probe::default()
            },
        },
    }
}

/// What gguf-py's script reports.
#[derive(Clone, Debug, Default, Deserialize)]
struct PyOut {
    ok: bool,
    error: Option<String>,
    version: Option<String>,
    times_ms: Option<Vec<f64>>,
    stats: Option<Stats>,
    peak_kb: Option<u64>,
    baseline_kb: Option<u64>,
}

fn find_python(o: &Opts) -> Option<String> {
    if o.no_python {
        return None;
    }
    let candidates: Vec<String> = match (&o.python, std::env::var("GGUF_PY")) {
        (Some(p), _) => vec![p.clone()],
        (None, Ok(p)) if !p.is_empty() => vec![p],
        _ => vec!["python3".to_string()],
    };
    candidates.into_iter().find(|py| {
        Command::new(py)
            .args(["-c", "import gguf"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn run_py(py: &str, script: &Path, file: &Path, n: usize, budget: f64, timeout: Duration) -> PyOut {
    let mut cmd = Command::new(py);
    cmd.arg(script)
        .arg(file)
        .arg(n.to_string())
        .arg(budget.to_string());
    match run_child(cmd, timeout) {
        Err(e) => PyOut {
            error: Some(e),
            ..PyOut::default()
        },
        Ok((out, err, status)) => out
            .lines()
            .last()
            .and_then(|l| serde_json::from_str::<PyOut>(l).ok())
            .unwrap_or_else(|| PyOut {
                error: Some(format!("crashed ({status}): {}", tail(&err, 300))),
                ..PyOut::default()
            }),
    }
}

/// One parser's result on one file.
#[derive(Clone, Debug, Default, Serialize)]
struct Cell {
    ok: bool,
    error: Option<String>,
    times_ms: Vec<f64>,
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    peak_kb: Option<u64>,
    stats: Option<Stats>,
    /// Whether the walk saw what ggufkit's walk saw (None when either failed, or for a floor).
    same_walk_as_ggufkit: Option<bool>,
}

#[derive(Clone, Debug, Serialize)]
struct FileResult {
    path: PathBuf,
    name: String,
    file_bytes: u64,
    header_bytes: u64,
    cells: Vec<(String, Cell)>,
}

impl FileResult {
    fn cell(&self, name: &str) -> Option<&Cell> {
        self.cells.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    fn cell_mut(&mut self, name: &str) -> &mut Cell {
        let i = self
            .cells
            .iter()
            .position(|(n, _)| n == name)
            .expect("a cell per column");
        &mut self.cells[i].1
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

fn display_name(p: &Path) -> String {
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
    let parent = p
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    match (parent, name) {
        (Some(d), Some(n)) if d == "vocab" || d == "synthetic" => format!("{d}/{n}"),
        (_, Some(n)) => n,
        _ => p.display().to_string(),
    }
}

fn expand_inputs(inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for p in inputs {
        if p.is_dir() {
            v.extend(files::gguf_files_in(p));
        } else {
            v.push(p.clone());
        }
    }
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--one") {
        let (Some(p), Some(f), Some(h)) = (args.get(1), args.get(2), args.get(3)) else {
            eprintln!("--one PARSER FILE HEADER_LEN");
            std::process::exit(2)
        };
        run_one(p, Path::new(f), h.parse().unwrap_or(0));
    }
    let mut o = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("compare: {e} (--help for the options)");
            std::process::exit(2)
        }
    };
    match run(&mut o) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("compare: {e}");
            std::process::exit(1)
        }
    }
}

fn run(o: &mut Opts) -> Result<i32, String> {
    let mut notes: Vec<String> = Vec::new();
    if let Some(dir) = &o.generate {
        for g in Generated::STRESS.into_iter().chain([Generated::Smoke]) {
            let p = g.ensure(dir).map_err(|e| format!("generating: {e}"))?;
            eprintln!("generated {}", p.display());
        }
        if o.inputs.is_empty() && !o.all && !o.smoke {
            return Ok(0);
        }
    }
    let mut paths = expand_inputs(&o.inputs);
    if o.smoke {
        let dir = files::generated_dir();
        paths.push(
            Generated::Smoke
                .ensure(&dir)
                .map_err(|e| format!("generating the smoke file: {e}"))?,
        );
        o.n = 1;
        o.py_n = Some(1);
    }
    if o.all {
        let (v, skipped) =
            files::standard_set(&o.stress_dir).map_err(|e| format!("generating: {e}"))?;
        paths.extend(v);
        notes.extend(skipped.into_iter().map(|s| format!("skipped: {s}")));
    }
    if paths.is_empty() {
        usage();
    }
    for p in &paths {
        if !p.is_file() {
            return Err(format!("{}: not a file", p.display()));
        }
    }

    let python = if o.cols.contains(&Col::Py) {
        let py = find_python(o);
        if py.is_none() {
            notes.push(
                "gguf-py: not measured (no Python with `gguf` found: give --python PATH or GGUF_PY)"
                    .into(),
            );
            o.cols.retain(|c| *c != Col::Py);
        }
        py
    } else {
        None
    };
    let exe = std::env::current_exe().map_err(|e| format!("locating myself: {e}"))?;
    let load_before = loadavg();
    let started = Instant::now();

    // 1. sizes, and one child run per parser and file: memory, failures, walk statistics
    let mut results: Vec<FileResult> = Vec::new();
    let baseline = probe(&exe, "none", &paths[0], 0, o.timeout).peak_kb;
    for p in &paths {
        let hlen = header_len(p);
        let mut fr = FileResult {
            path: p.clone(),
            name: display_name(p),
            file_bytes: std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
            header_bytes: hlen,
            cells: o
                .cols
                .iter()
                .map(|c| (c.name().to_string(), Cell::default()))
                .collect(),
        };
        for c in &o.cols {
            let Col::Rust(parser) = *c else { continue };
            eprintln!("probing {} with {}", fr.name, parser.name());
            let pr = probe(&exe, parser.name(), p, hlen, o.timeout);
            let cell = fr.cell_mut(parser.name());
            cell.ok = pr.ok;
            cell.error = pr.error;
            cell.stats = pr.stats;
            cell.peak_kb = pr.peak_kb;
        }
        results.push(fr);
    }

    // 2. interleaved timing in this process
    let rust: Vec<Parser> = o
        .cols
        .iter()
        .filter_map(|c| match c {
            Col::Rust(p) => Some(*p),
            Col::Py => None,
        })
        .collect();
    for rep in 0..o.n {
        eprint!("\rrepetition {}/{}", rep + 1, o.n);
        for fr in results.iter_mut() {
            let k = rust.len().max(1);
            for i in 0..rust.len() {
                let parser = rust[(i + rep) % k];
                if !fr.cell(parser.name()).is_some_and(|c| c.ok) {
                    continue;
                }
                let t = Instant::now();
                let r = parser.run_catching(&fr.path, fr.header_bytes);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(&r);
                let cell = fr.cell_mut(parser.name());
                match r {
                    Ok(_) => cell.times_ms.push(ms),
                    Err(e) => {
                        cell.ok = false;
                        cell.error = Some(format!("failed in repetition {}: {e}", rep + 1));
                    }
                }
            }
        }
    }
    eprintln!();

    // 3. gguf-py, one subprocess per file timing its own runs
    let mut py_version = None;
    let mut py_baseline = None;
    if let Some(py) = &python {
        let script = std::env::temp_dir().join(format!("gguf_py_walk_{}.py", std::process::id()));
        std::fs::write(&script, PY_SCRIPT).map_err(|e| format!("writing the script: {e}"))?;
        for fr in results.iter_mut() {
            eprintln!("gguf-py on {}", fr.name);
            let out = run_py(
                py,
                &script,
                &fr.path,
                o.py_n.unwrap_or(o.n),
                o.py_budget,
                o.timeout,
            );
            py_version = py_version.or(out.version.clone());
            py_baseline = py_baseline.or(out.baseline_kb);
            let cell = fr.cell_mut(GGUF_PY);
            cell.ok = out.ok;
            cell.error = out.error;
            cell.times_ms = out.times_ms.unwrap_or_default();
            cell.stats = out.stats;
            cell.peak_kb = out.peak_kb;
        }
        let _ = std::fs::remove_file(&script);
    }

    // 4. medians and walk checks
    let mut bad_smoke = Vec::new();
    for fr in results.iter_mut() {
        let reference = fr.cell("ggufkit").filter(|c| c.ok).and_then(|c| c.stats);
        for (name, cell) in fr.cells.iter_mut() {
            cell.median_ms = median(&cell.times_ms);
            cell.min_ms = cell.times_ms.iter().copied().reduce(f64::min);
            let walks = Parser::from_name(name).is_none_or(|p| p.walks());
            if walks && cell.ok {
                if let (Some(r), Some(s)) = (reference, cell.stats) {
                    cell.same_walk_as_ggufkit = Some(r.same_walk(&s));
                }
            }
            if o.smoke && (!cell.ok || cell.same_walk_as_ggufkit == Some(false)) {
                bad_smoke.push(format!(
                    "{name} on {}: {}",
                    fr.name,
                    cell.error.as_deref().unwrap_or("walked differently")
                ));
            }
        }
    }
    let load_after = loadavg();
    let elapsed = started.elapsed().as_secs_f64();

    let versions: Vec<(String, String)> = o
        .cols
        .iter()
        .map(|c| {
            let v = match c {
                Col::Rust(p) => p.version().to_string(),
                Col::Py => format!(
                    "gguf {} (GGUFReader), {}",
                    py_version.clone().unwrap_or_else(|| "?".into()),
                    python.clone().unwrap_or_default()
                ),
            };
            (c.name().to_string(), v)
        })
        .collect();
    let machine = json!({
        "cpu": cpu_model(),
        "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "seconds": elapsed,
    });
    let out = json!({
            "machine": machine,
            "repetitions": o.n,
            "parsers": versions.iter().map(|(n, v)| json!({"name": n, "version": v})).collect::<Vec<_>>(),
            "runner_baseline_peak_kb": baseline,
            "gguf_py_baseline_peak_kb": py_baseline,
            "notes": notes,
            "files": results,
    });
    let text = serde_json::to_string_pretty(&out).expect("serializable");
    if let Some(p) = &o.json_out {
        std::fs::write(p, &text).map_err(|e| format!("writing {}: {e}", p.display()))?;
    }
    if o.json {
        println!("{text}");
    } else {
        print!(
            "{}",
            markdown(
                &results,
                &o.cols,
                &versions,
                &notes,
                o.n,
                baseline,
                py_baseline
            )
        );
        println!(
            "\nMachine: {} ({} threads); load average {} before, {} after; {:.0} s in all.",
            cpu_model(),
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            machine["loadavg_before"].as_str().unwrap_or("?"),
            machine["loadavg_after"].as_str().unwrap_or("?"),
            elapsed
        );
    }
    if o.smoke {
        if bad_smoke.is_empty() {
            eprintln!("smoke: every parser read and walked the smoke file");
        } else {
            for b in &bad_smoke {
                eprintln!("smoke: FAILED {b}");
            }
            return Ok(1);
        }
    }
    Ok(0)
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{:.0}", ms)
    } else if ms >= 10.0 {
        format!("{:.1}", ms)
    } else if ms >= 1.0 {
        format!("{:.2}", ms)
    } else {
        format!("{:.3}", ms)
    }
}

fn fmt_mb(bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    if mb >= 10.0 {
        format!("{mb:.1}")
    } else {
        format!("{mb:.2}")
    }
}

fn markdown(
    results: &[FileResult],
    cols: &[Col],
    versions: &[(String, String)],
    notes: &[String],
    n: usize,
    baseline: Option<u64>,
    py_baseline: Option<u64>,
) -> String {
    let mut s = String::new();
    let mut footnotes: Vec<String> = Vec::new();
    let mut note = |text: String| -> usize {
        if let Some(i) = footnotes.iter().position(|f| *f == text) {
            return i + 1;
        }
        footnotes.push(text);
        footnotes.len()
    };
    let head = |s: &mut String, first: &str| {
        s.push_str(&format!("| file | {first} |"));
        for c in cols {
            s.push_str(&format!(" {} |", c.name()));
        }
        s.push_str("\n|---|---:|");
        for _ in cols {
            s.push_str("---:|");
        }
        s.push('\n');
    };

    s.push_str(&format!(
        "Median milliseconds to open and fully walk each file ({n} repetitions, interleaved; \
         gguf-py: its own runs, count in brackets when fewer), and the ratio to ggufkit:\n\n"
    ));
    head(&mut s, "header MB");
    for fr in results {
        let base = fr.cell("ggufkit").and_then(|c| c.median_ms);
        s.push_str(&format!("| {} | {} |", fr.name, fmt_mb(fr.header_bytes)));
        for c in cols {
            let cell = fr.cell(c.name()).cloned().unwrap_or_default();
            let text = if !cell.ok {
                let e = cell.error.clone().unwrap_or_else(|| "not run".into());
                format!(
                    "fails [{}]",
                    note(format!("{} on {}: {e}", c.name(), fr.name))
                )
            } else {
                match cell.median_ms {
                    None => "–".into(),
                    Some(m) => {
                        let mut t = fmt_ms(m);
                        if *c == Col::Py && cell.times_ms.len() < n {
                            t.push_str(&format!(" ({})", cell.times_ms.len()));
                        }
                        if *c != Col::Rust(Parser::Ggufkit) {
                            if let Some(b) = base.filter(|b| *b > 0.0) {
                                let r = m / b;
                                t.push_str(&if r >= 100.0 {
                                    format!(" ×{r:.0}")
                                } else {
                                    format!(" ×{r:.1}")
                                });
                            }
                        }
                        if cell.same_walk_as_ggufkit == Some(false) {
                            let st = cell.stats.unwrap_or_default();
                            let r = fr.cell("ggufkit").and_then(|c| c.stats).unwrap_or_default();
                            t.push_str(&format!(
                                " [{}]",
                                note(format!(
                                    "{} on {} walked something else: {} keys, {} values, {} tensors \
                                     (ggufkit: {}, {}, {})",
                                    c.name(),
                                    fr.name,
                                    st.keys,
                                    st.values,
                                    st.tensors,
                                    r.keys,
                                    r.values,
                                    r.tensors
                                ))
                            ));
                        }
                        t
                    }
                }
            };
            s.push_str(&format!(" {text} |"));
        }
        s.push('\n');
    }

    s.push_str("\nPeak resident memory (MB) of a process that opens and walks the file once:\n\n");
    head(&mut s, "file MB");
    for fr in results {
        s.push_str(&format!("| {} | {} |", fr.name, fmt_mb(fr.file_bytes)));
        for c in cols {
            let cell = fr.cell(c.name()).cloned().unwrap_or_default();
            let text = match cell.peak_kb {
                Some(kb) => fmt_mb(kb * 1024),
                None => "–".into(),
            };
            let text = if cell.ok {
                text
            } else {
                format!("{text} (fails)")
            };
            s.push_str(&format!(" {text} |"));
        }
        s.push('\n');
    }
    if let Some(b) = baseline {
        s.push_str(&format!(
            "\nThe Rust columns are child processes of the runner, whose own peak before parsing \
             anything is {} MB",
            fmt_mb(b * 1024)
        ));
        match py_baseline {
            Some(p) => s.push_str(&format!(
                "; gguf-py's is a Python process whose peak after importing gguf and numpy is {} MB.\n",
                fmt_mb(p * 1024)
            )),
            None => s.push_str(".\n"),
        }
    }

    s.push_str("\nParsers:\n");
    for (n, v) in versions {
        s.push_str(&format!("- {n}: {v}\n"));
    }
    if !footnotes.is_empty() {
        s.push_str("\nNotes:\n");
        for (i, f) in footnotes.iter().enumerate() {
            s.push_str(&format!("{}. {}\n", i + 1, f.replace('|', "\\|")));
        }
    }
    for n in notes {
        s.push_str(&format!("\n{n}\n"));
    }
    s
}
