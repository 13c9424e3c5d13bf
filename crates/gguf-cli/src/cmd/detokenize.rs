//! `gguf detokenize FILE [ID...] [--remove-special] [--unparse-special]`: the text llama.cpp's
//! `llama_detokenize` gives for token ids, with the file's own tokenizer, written as its bytes.
//! `--jsonl` answers one JSON object per stdin line, on every core.

use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;

use ggufkit::tokenizer::Tokenizer;

use super::{open_reporting, verdict, CliError, CmdResult};
use crate::batch::{finish, map_lines, utf8, Line};
use crate::output::tokens;

#[derive(clap::Args)]
pub struct Args {
    /// The GGUF whose tokenizer to use (a vocabulary or a whole model; a URL reads its header).
    file: PathBuf,
    /// Token ids (else read from standard input, separated by spaces, commas or newlines).
    ids: Vec<u32>,
    /// Drop the leading BOS and trailing EOS the file's flags add (remove_special).
    #[arg(long)]
    remove_special: bool,
    /// Write control tokens' text (`<|eot_id|>`) instead of nothing (unparse_special).
    #[arg(long)]
    unparse_special: bool,
    /// Batch: each stdin line `{"ids", "remove_special"?, "unparse_special"?}` (absent flags from
    /// the options above) gives one line `{"text": ...}` or `{"error": "..."}`, in order.
    #[arg(long, conflicts_with = "ids")]
    jsonl: bool,
}

/// One line of `--jsonl` input.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    ids: Vec<u32>,
    remove_special: Option<bool>,
    unparse_special: Option<bool>,
}

pub fn run(args: Args) -> CmdResult {
    let opened = open_reporting(&args.file)?;
    let g = opened.gguf();
    let tok = Tokenizer::from_gguf(g)
        .map_err(|e| CliError::failed(format!("{}: {e}", args.file.display())))?;
    if args.jsonl {
        batch(&tok, args.remove_special, args.unparse_special)?;
        return Ok(verdict(g));
    }
    let ids = if args.ids.is_empty() {
        stdin_ids()?
    } else {
        args.ids.clone()
    };
    let text = tok
        .decode(&ids, args.remove_special, args.unparse_special)
        .map_err(|e| CliError::failed(format!("{}: {e}", args.file.display())))?;
    let stdout = io::stdout();
    let terminal = stdout.is_terminal();
    let mut out = stdout.lock();
    // the text's bytes exactly; a terminal gets a newline so that the prompt starts on its own line
    let written = out
        .write_all(&text)
        .and_then(|_| {
            if terminal {
                out.write_all(b"\n")
            } else {
                Ok(())
            }
        })
        .and_then(|_| out.flush());
    finish(written)?;
    Ok(verdict(g))
}

/// Ids from standard input: decimal numbers separated by whitespace or commas.
fn stdin_ids() -> Result<Vec<u32>, CliError> {
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::failed(format!("standard input cannot be read: {e}")))?;
    let text = utf8(&bytes, "standard input").map_err(CliError::failed)?;
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u32>().map_err(|_| {
                CliError::failed(format!(
                    "standard input: '{w}' is not a token id (a number from 0 to {})",
                    u32::MAX
                ))
            })
        })
        .collect()
}

/// `--jsonl`: every stdin line answered in order, chunks of lines on every core.
fn batch(tok: &Tokenizer<'_>, remove_special: bool, unparse_special: bool) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let answer = |_: &mut (), line: &Line<'_>, out: &mut String| {
        let r = match request(line) {
            Ok(r) => r,
            Err(e) => return tokens::error_answer(out, &e),
        };
        match tok.decode(
            &r.ids,
            r.remove_special.unwrap_or(remove_special),
            r.unparse_special.unwrap_or(unparse_special),
        ) {
            Ok(text) => tokens::text_answer(out, &text),
            Err(e) => tokens::error_answer(out, &format!("line {}: {e}", line.number)),
        }
    };
    let done = map_lines(io::stdin().lock(), &mut out, |_, _| (), answer).and_then(|_| out.flush());
    finish(done)
}

fn request(line: &Line<'_>) -> Result<Request, String> {
    let text = utf8(line.bytes, &format!("line {}", line.number))?;
    serde_json::from_str(text).map_err(|e| format!("line {}: {e}", line.number))
}
