//! `gguf report`: a self-contained HTML page, checked as text and, when Chromium is installed, in a
//! real headless browser (the DOM after the page's script ran, and a screenshot).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::{shared, V};

fn fixture(dir: &Path) -> String {
    tiny_model()
        .kv(
            "general.note",
            V::str("<script>alert(1)</script> & \"quotes\""),
        )
        .write(dir, "tiny.gguf")
}

#[test]
fn report_is_one_self_contained_page() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path());
    let (code, out, err) = run(dir.path(), &["report", &f, "-o", "r.html"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for external in ["http://", "https://", "src=", "<link", "@import", "url("] {
        assert!(
            !html.contains(external),
            "the page refers to something outside: {external}"
        );
    }
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "one inline script, no other"
    );
    // metadata text is escaped, never markup
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    let tensors = html.split("id=\"tensors\"").nth(1).unwrap();
    let tensors = tensors.split("</table>").next().unwrap();
    assert_eq!(tensors.matches("<tr>").count(), 1 + 7);
    assert!(html.contains("<svg "));
    assert!(html.contains("By layer (2 layers)"));
    assert!(html.contains("id=\"layout\""));
}

/// A header of 60,000 keys: each table shows its first 50,000 rows and says how many it left out
/// and which command lists them, so the page stays a few times the file's size (without the cap a
/// hostile header made a page 35 times its size).
#[test]
fn a_huge_header_makes_a_page_of_bounded_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = ggufkit_testkit::Model::new();
    for i in 0..60_000u32 {
        m = m.kv(&format!("k{i}"), V::U8(1));
    }
    let f = m.write(dir.path(), "keys.gguf");
    let size = std::fs::metadata(dir.path().join("keys.gguf"))
        .unwrap()
        .len();
    let (code, _, err) = run(dir.path(), &["report", &f, "-o", "r.html"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    let meta = html.split("id=\"meta\"").nth(1).unwrap();
    let meta = meta.split("</table>").next().unwrap();
    assert_eq!(meta.matches("<tr>").count(), 1 + 50_000 + 1);
    assert!(meta.contains("10,000 more not shown: <code>gguf dump FILE</code>"));
    // 4 fields a pair and 4 of the fixed header, 50,000 of them shown
    let layout = html.split("id=\"layout\"").nth(1).unwrap();
    assert!(layout.contains("190,004 more not shown: <code>gguf layout FILE</code>"));
    assert!(
        (html.len() as u64) < 12 * size,
        "{} bytes of page for {size} of file",
        html.len()
    );
}

#[test]
fn report_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path());
    let (code, _, err) = run(dir.path(), &["report", &f, "-o", "no/such/dir/r.html"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(
            "gguf: cannot write no/such/dir/r.html: the folder no/such/dir does not exist"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let (code, _, err) = run(dir.path(), &["report", "absent.gguf", "-o", "r.html"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("gguf: absent.gguf: "), "{err}");
}

/// The Chromium to test with: `$CHROMIUM`, or the first of the usual names that runs.
fn chromium() -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    names.extend(["chromium", "chromium-browser", "google-chrome"].map(PathBuf::from));
    names.into_iter().find(|n| {
        Command::new(n)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Runs headless Chromium on `url` with `extra` flags; stdout, or a panic after 120 s.
fn headless(browser: &Path, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().expect("chromium output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn report_renders_in_a_real_browser() {
    let Some(browser) = chromium() else {
        return ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::Chromium,
            "no chromium found (apt-get install chromium, or set CHROMIUM=/path); the browser test of `gguf report` did not run",
        );
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![(
        dir.path().to_path_buf(),
        fixture(dir.path()),
        7usize,
        "blk.1.",
    )];
    if let Some(c) = shared::corpus() {
        files.push((c, "models/llama-2-tiny-random.gguf".into(), 12, "ffn_"));
    }
    for (k, (cwd, file, n_tensors, filter)) in files.iter().enumerate() {
        let page = dir.path().join(format!("r{k}.html"));
        let (code, _, err) = run(cwd, &["report", file, "-o", page.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let url = format!("file://{}#tensor-filter={filter}", page.display());
        let dom = headless(&browser, &url, &["--dump-dom"]);
        assert!(
            dom.contains("data-ready=\"1\""),
            "{file}: the page's script did not run:\n{dom}"
        );
        let tensors = dom
            .split("id=\"tensors\"")
            .nth(1)
            .unwrap()
            .split("</table>")
            .next()
            .unwrap();
        let rows = tensors.matches("<tr").count() - 1;
        assert_eq!(rows, *n_tensors, "{file}");
        let hidden = tensors.matches("display: none").count();
        let shown = rows - hidden;
        assert!(
            shown > 0 && shown < rows,
            "{file}: the filter {filter} hid {hidden} of {rows}"
        );
        assert!(
            dom.contains(&format!("id=\"tensor-count\">{shown} of {rows} shown<")),
            "{file}: the count was not written"
        );
        let kvs = dom
            .split("id=\"meta\"")
            .nth(1)
            .unwrap()
            .split("</table>")
            .next()
            .unwrap();
        assert!(kvs.matches("<tr").count() > 5);
        assert!(!kvs.contains("display: none"), "no metadata filter was set");

        let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{k}.png"));
        let _ = std::fs::remove_file(&shot);
        headless(
            &browser,
            &url,
            &[&format!("--screenshot={}", shot.display())],
        );
        let png = std::fs::read(&shot).expect("a screenshot");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((width, height), (1280, 2000));
        assert!(
            png.len() > 20_000,
            "{file}: the screenshot looks blank ({} bytes)",
            png.len()
        );
        eprintln!("screenshot of the report of {file}: {}", shot.display());
    }
}

#[test]
fn counts_of_one_read_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    ggufkit_testkit::encode::Model::new()
        .kv("general.architecture", V::str("llama"))
        .f32("blk.0.attn_norm.weight", &[4], &[1.0; 4])
        .write(dir.path(), "one.gguf");
    let (code, _, err) = run(dir.path(), &["report", "one.gguf", "-o", "r.html"]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.contains("Metadata (1 key)"), "metadata heading");
    assert!(html.contains("By layer (1 layer)"), "layer heading");
    let (code, out, err) = run(dir.path(), &["dump", "--markdown", "one.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("## Metadata (1 key)"), "{out}");
}

#[test]
fn an_output_not_named_html_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path());
    for out in ["r.md", "r.json", "r"] {
        let (code, _, err) = run(dir.path(), &["report", &f, "-o", out]);
        assert_eq!(code, 2, "{out}: {err}");
        assert!(err.contains("name the output .html"), "{out}: {err}");
        assert!(!dir.path().join(out).exists(), "{out}");
    }
    let (code, _, err) = run(dir.path(), &["report", &f, "-o", "R.HTM"]);
    assert_eq!(code, 0, "{err}");
}
