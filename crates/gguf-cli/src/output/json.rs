//! The JSON writer of every `--json` output: the library's, so that the CLI and the library's
//! exports spell a value the same way.

pub use ggufkit::json::Json;
