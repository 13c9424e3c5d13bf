//! `gguf tokenize FILE [TEXT] [--file PATH] [--no-add-special] [--parse-special]
//! [--ids | --json | --count]`: the token ids llama.cpp's `llama_tokenize` gives for a text, with
//! the file's own tokenizer. `--jsonl` tokenizes one JSON object per stdin line, on every core.

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::PathBuf;

use ggufkit::tokenizer::{Session, Sessions, Tokenizer};

use super::{open_reporting, verdict, CliError, CmdResult};
use crate::batch::{finish, map_lines, utf8, Line};
use crate::output::{print, tokens};

#[derive(clap::Args)]
pub struct Args {
    /// The GGUF whose tokenizer to use (a vocabulary or a whole model; a URL reads its header).
    file: PathBuf,
    /// The text to tokenize (else --file, else standard input).
    #[arg(conflicts_with = "input")]
    text: Option<OsString>,
    /// Tokenize this file's bytes exactly (no newline added or removed).
    #[arg(long = "file", value_name = "PATH")]
    input: Option<PathBuf>,
    /// Do not add the BOS/EOS tokens the file asks for (llama_tokenize's add_special=false).
    #[arg(long)]
    no_add_special: bool,
    /// Match special tokens' text in the input (`<|eot_id|>`) as those tokens (parse_special).
    #[arg(long)]
    parse_special: bool,
    /// Only the ids, on one line, a space apart.
    #[arg(long, group = "form")]
    ids: bool,
    /// `{"ids": [...], "pieces": [...]}`.
    #[arg(long, group = "form")]
    json: bool,
    /// Only the number of tokens.
    #[arg(long, group = "form")]
    count: bool,
    /// Batch: each stdin line `{"text", "add_special"?, "parse_special"?}` (absent flags from the
    /// options above) gives one line `{"ids": [...]}` or `{"error": "..."}`, in order.
    #[arg(long, conflicts_with_all = ["text", "input", "form"])]
    jsonl: bool,
}

/// One line of `--jsonl` input (its text borrowed from the line unless it has escapes).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Request<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    add_special: Option<bool>,
    parse_special: Option<bool>,
}

pub fn run(args: Args) -> CmdResult {
    let opened = open_reporting(&args.file)?;
    let g = opened.gguf();
    let in_file = |e| CliError::failed(format!("{}: {e}", args.file.display()));
    let add_special = !args.no_add_special;
    if args.jsonl {
        // the tables the first line needs, built on every core before the workers start (an
        // error is each line's answer, as encoding gives it)
        let tok = Tokenizer::from_gguf_eager(g).map_err(in_file)?;
        tok.prepare().ok();
        batch(&tok, add_special, args.parse_special)?;
        return Ok(verdict(g));
    }
    // read first, to know how much the text needs; a vocabulary's error still comes first
    let input = read_input(&args);
    let text_bytes = input.as_ref().map_or(0, |(bytes, _)| bytes.len());
    let tok = Tokenizer::from_gguf_for(g, text_bytes).map_err(in_file)?;
    let (bytes, what) = input?;
    let text = utf8(&bytes, &what).map_err(CliError::failed)?;
    let ids = tok
        .encode(text, add_special, args.parse_special)
        .map_err(in_file)?;
    if args.count {
        print(&format!("{}\n", ids.len()));
    } else if args.ids {
        print(&tokens::ids_line(&ids));
    } else {
        let pieces = ids
            .iter()
            .map(|&id| tok.piece(id, true).map(|p| p.to_vec()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(in_file)?;
        if args.json {
            print(&tokens::json(&ids, &pieces));
        } else {
            print(&tokens::table(&ids, &pieces));
        }
    }
    Ok(verdict(g))
}

/// The text's bytes and what error messages call it: the argument, `--file`'s bytes, or stdin.
fn read_input(args: &Args) -> Result<(Vec<u8>, String), CliError> {
    if let Some(t) = &args.text {
        return Ok((os_bytes(t.clone()), "the TEXT argument".into()));
    }
    if let Some(p) = &args.input {
        super::readable_as(p, "a text file", true)?;
        let bytes = std::fs::read(p)
            .map_err(|e| CliError::failed(format!("{}: cannot be read: {e}", p.display())))?;
        return Ok((bytes, p.display().to_string()));
    }
    let mut bytes = Vec::new();
    io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::failed(format!("standard input cannot be read: {e}")))?;
    Ok((bytes, "standard input".into()))
}

#[cfg(unix)]
fn os_bytes(s: OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStringExt;
    s.into_vec()
}

#[cfg(not(unix))]
fn os_bytes(s: OsString) -> Vec<u8> {
    s.to_string_lossy().into_owned().into_bytes()
}

/// `--jsonl`: every stdin line answered in order, chunks of lines on every core. A chunk's
/// parts take an encoding session each from [`Sessions`], kept from chunk to chunk so that the
/// words a session has encoded serve the next lines too.
fn batch(tok: &Tokenizer<'_>, add_special: bool, parse_special: bool) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let sessions = Sessions::new(tok);
    let session = |part: usize, parts: usize| (sessions.take(part, parts), Vec::new());
    let answer = |(session, ids): &mut (Session<'_, '_, '_>, Vec<u32>),
                  line: &Line<'_>,
                  out: &mut String| {
        match request(line) {
            Ok(r) => match session.encoder().encode_into(
                &r.text,
                r.add_special.unwrap_or(add_special),
                r.parse_special.unwrap_or(parse_special),
                ids,
            ) {
                Ok(()) => tokens::ids_answer(out, ids),
                Err(e) => tokens::error_answer(out, &format!("line {}: {e}", line.number)),
            },
            Err(e) => tokens::error_answer(out, &e),
        }
    };
    let done = map_lines(io::stdin().lock(), &mut out, session, answer).and_then(|_| out.flush());
    finish(done)
}

fn request<'a>(line: &Line<'a>) -> Result<Request<'a>, String> {
    let text = utf8(line.bytes, &format!("line {}", line.number))?;
    serde_json::from_str(text).map_err(|e| format!("line {}: {e}", line.number))
}
