//! What reading a remote file cost ([`ggufkit::ReadCost`]), as the outputs say it: a
//! `"remote":{"bytes":N,"requests":M}` member at the end of a `--json` object, a `fetched` line
//! at the end of a human summary, a `FILE: fetched` line on stderr where the output has no place
//! for it. A local file costs nothing and adds nothing.

use ggufkit::ReadCost;

use super::counted;

/// The human line `  fetched             N bytes in M requests` (with its newline) when the file
/// was fetched.
pub fn cost_line(cost: Option<ReadCost>) -> Option<String> {
    cost.map(|c| format!("  {:<18} {}\n", "fetched", fetched(c)))
}

/// The line for stderr, `FILE: fetched N bytes in M requests`, when the file was fetched: where
/// an output has no place for the cost (`layout --json` is an array).
pub fn cost_note(file: &str, cost: Option<ReadCost>) -> Option<String> {
    cost.map(|c| format!("{file}: fetched {}", fetched(c)))
}

/// `N bytes in M requests`.
fn fetched(c: ReadCost) -> String {
    format!(
        "{} in {}",
        counted(c.bytes, "byte", "bytes"),
        counted(c.requests, "request", "requests")
    )
}
