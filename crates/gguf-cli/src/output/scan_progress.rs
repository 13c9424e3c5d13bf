//! The progress bar of `gguf scan`: files done of all, files per second, bytes fetched and
//! errors, on a terminal only (stderr), never when output is redirected.

use std::sync::atomic::{AtomicU64, Ordering};

use ggufkit::scan::{FileRow, ScanProgress};
use indicatif::{ProgressBar, ProgressStyle};

use super::progress::Progress;

/// A bar counting locations, or nothing when not on a terminal.
pub struct ScanBar {
    bar: Option<ProgressBar>,
    bytes: AtomicU64,
    errors: AtomicU64,
}

impl ScanBar {
    /// A bar, hidden unless stdout and stderr are terminals.
    pub fn new() -> Self {
        let bar = Progress::shown().then(|| {
            let bar = ProgressBar::new(0);
            let style = ProgressStyle::with_template(
                "scan [{bar:40}] {pos}/{len} files {per_sec} eta {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        ScanBar {
            bar,
            bytes: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl ScanProgress for ScanBar {
    fn total(&self, locations: u64) {
        if let Some(b) = &self.bar {
            b.set_length(locations);
        }
    }

    fn done(&self, row: Option<&FileRow>) {
        let Some(b) = &self.bar else { return };
        if let Some(r) = row {
            let bytes = self.bytes.fetch_add(r.bytes_fetched, Ordering::Relaxed) + r.bytes_fetched;
            let bad = u64::from(r.read_error.is_some() || r.valid == Some(false));
            let errors = self.errors.fetch_add(bad, Ordering::Relaxed) + bad;
            b.set_message(format!(
                "{} fetched, {} not valid or unreadable",
                super::human_bytes(bytes),
                errors
            ));
        }
        b.inc(1);
    }
}

impl Drop for ScanBar {
    fn drop(&mut self) {
        self.finish();
    }
}
