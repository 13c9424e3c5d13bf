//! Progress bars for long writes and passes over tensor data: shown on a terminal (stderr), never
//! when output is redirected.

use std::io::IsTerminal;

use ggufkit::write::ProgressFn;
use indicatif::{ProgressBar, ProgressStyle};

/// A byte-count progress bar, or nothing when stderr is not a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// True when a bar would be shown: both stdout and stderr are terminals.
    pub fn shown() -> bool {
        std::io::stderr().is_terminal() && std::io::stdout().is_terminal()
    }

    /// A bar for `total` bytes labelled `what`; hidden unless [`Progress::shown`].
    pub fn bytes(total: u64, what: &str) -> Self {
        let bar = Self::shown().then(|| {
            let bar = ProgressBar::new(total);
            let style = ProgressStyle::with_template(
                "{msg} [{bar:40}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message(what.to_string());
            bar
        });
        Progress { bar }
    }

    /// The callback the library calls with each chunk's byte count.
    pub fn callback(&self) -> Option<ProgressFn> {
        let bar = self.bar.clone()?;
        Some(Box::new(move |n| bar.inc(n)))
    }

    /// Counts `n` more bytes done (callable from several threads at once).
    pub fn add(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The bar as the library's progress sink: the library sets the total and counts the bytes.
impl ggufkit::progress::Progress for Progress {
    fn total(&self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.set_length(bytes);
        }
    }

    fn advance(&self, bytes: u64) {
        self.add(bytes);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
