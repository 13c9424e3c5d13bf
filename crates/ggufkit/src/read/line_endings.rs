//! A GGUF that a text tool rewrote: every `\n` byte turned into `\r\n` (Git's `autocrlf`, an FTP
//! transfer in ASCII mode, an editor). The counts and lengths that happen to hold a 0x0a byte grow a
//! byte, so the file breaks at some rule far from the cause; the first error then says what
//! happened, so that nobody hunts for a corrupt field.
#![forbid(unsafe_code)]

use crate::error::{Diagnostic, Rule};
use crate::read::parser::{parse_plain, Mode, Paths};
use crate::read::source::SliceSource;

/// Bytes of a broken file looked at: a header that ends beyond them is judged on its start.
const WINDOW: usize = 64 << 20;

/// Adds to `d`, the first error of the file whose first bytes are `bytes`, a sentence on
/// converted line endings when undoing the conversion gives a header that parses.
#[cold]
pub(crate) fn explain(bytes: &[u8], d: &mut Diagnostic) {
    if d.rule != Rule::Magic && converted(&bytes[..bytes.len().min(WINDOW)]) {
        d.message.push_str(
            "; the file holds \\r\\n where a text tool may have turned every \\n byte into \\r\\n \
             (with \\r\\n read back as \\n its header is valid): the file is damaged, get it \
             again as binary (Git: `*.gguf binary` in .gitattributes)",
        );
    }
}

/// True when `bytes` hold `\r\n` and with each read back as `\n` the header is valid.
fn converted(bytes: &[u8]) -> bool {
    if !bytes.windows(2).any(|w| w == b"\r\n") {
        return false;
    }
    let mut undone = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        undone.push(bytes[i]);
        i += 1;
    }
    // strict: a header that merely gets past the same broken rule is not evidence
    let (r, found, _) = parse_plain(&mut SliceSource(&undone), Mode::Strict, Paths::Fast);
    r.is_ok() && found.errors.is_empty()
}
