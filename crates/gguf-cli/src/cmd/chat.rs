//! `gguf chat FILE [--messages PATH] [--tools PATH] [--add-generation-prompt] [--template NAME]
//! [--var K=V]... [--jsonl]`: a conversation rendered with the file's chat template, as
//! transformers' `apply_chat_template(..., tokenize=False)` renders it (`ggufkit::chat`).
//!
//! With `--jsonl`, stdin holds one request per line (`{"messages", "tools"?, "documents"?,
//! "add_generation_prompt"?, "kwargs"?}`) and stdout gets one line per request, in order:
//! `{"text": ...}` or `{"error": ...}`. Lines are read in chunks rendered in parallel, so memory
//! stays bounded by a chunk whatever the input's length.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use ggufkit::chat::{self, ChatError, ChatTemplate, RenderRequest, TemplateValue};
use rayon::prelude::*;

use super::{open_reporting, CliError, CmdResult, FAILED, OK};
use crate::output::chat as render_out;
use crate::output::print;

/// Requests read and rendered together in `--jsonl` mode (at most this many lines, or
/// [`CHUNK_BYTES`]).
const CHUNK_LINES: usize = 4096;
/// Bytes of requests read before a chunk is rendered.
const CHUNK_BYTES: usize = 8 << 20;

#[derive(clap::Args)]
pub struct Args {
    /// The model file.
    file: PathBuf,
    /// The conversation: a JSON file holding the list of messages (or a request object with
    /// "messages", "tools", "documents", "add_generation_prompt", "kwargs"). Default: stdin.
    #[arg(long, value_name = "PATH", conflicts_with = "jsonl")]
    messages: Option<PathBuf>,
    /// The tools' JSON schemas: a JSON file holding a list of objects.
    #[arg(long, value_name = "PATH")]
    tools: Option<PathBuf>,
    /// End with the header of an assistant turn.
    #[arg(long)]
    add_generation_prompt: bool,
    /// The named template `tokenizer.chat_template.NAME` instead of the default one (default:
    /// `tool_use` when tools are given and the file has it, as transformers picks).
    #[arg(long, value_name = "NAME")]
    template: Option<String>,
    /// A further template variable, e.g. `enable_thinking=false`: V is read as JSON when it is
    /// JSON (true, 3, "x", [..], {..}), else as text. Repeatable.
    #[arg(long = "var", value_name = "K=V")]
    vars: Vec<String>,
    /// Render one request per stdin line (JSON Lines) to one `{"text"}` or `{"error"}` line each,
    /// in order; --tools, --add-generation-prompt and --var are the defaults of every line.
    #[arg(long)]
    jsonl: bool,
}

pub fn run(args: Args) -> CmdResult {
    let opened = open_reporting(&args.file)?;
    let g = opened.gguf();
    let vars = parse_vars(&args.vars)?;
    let tools = match &args.tools {
        Some(p) => Some(read_json(p)?),
        None => None,
    };
    let defaults = RenderRequest {
        tools,
        add_generation_prompt: args.add_generation_prompt,
        kwargs: vars,
        ..RenderRequest::default()
    };
    let file = &args.file;
    let fail = |e: ChatError| CliError::failed(format!("{}: {e}", file.display()));
    let name = args
        .template
        .as_deref()
        .or_else(|| chat::default_name(g, defaults.tools.is_some()));
    if args.jsonl {
        // a line's tools may call for the tool_use template: both are compiled once
        let plain = ChatTemplate::from_gguf(g, name).map_err(fail)?;
        let tool_use = match (&args.template, chat::default_name(g, true)) {
            (None, Some(n)) => Some(ChatTemplate::from_gguf(g, Some(n)).map_err(fail)?),
            _ => None,
        };
        let pick = |req: &RenderRequest| match (&tool_use, req.tools.is_some()) {
            (Some(t), true) => t,
            _ => &plain,
        };
        return jsonl(&defaults, pick);
    }
    let request = match &args.messages {
        Some(p) => read_json(p)?,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::failed(format!("stdin: {e}")))?;
            parse_json(&text, Path::new("stdin"))?
        }
    };
    let request = RenderRequest::from_conversation(&request)
        .map_err(fail)?
        .with_defaults(&defaults);
    let template = ChatTemplate::from_gguf(g, name).map_err(fail)?;
    let text = template.render(&request).map_err(fail)?;
    print(&text);
    Ok(OK)
}

/// `--jsonl`: stdin's requests, rendered chunk by chunk in parallel, answered in order.
fn jsonl<'t>(
    defaults: &RenderRequest,
    pick: impl Fn(&RenderRequest) -> &'t ChatTemplate + Sync,
) -> CmdResult {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line_no = 0u64;
    let mut offset = 0u64;
    loop {
        let mut chunk: Vec<(u64, u64, Vec<u8>)> = Vec::new();
        let mut bytes = 0;
        while chunk.len() < CHUNK_LINES && bytes < CHUNK_BYTES {
            let mut line = Vec::new();
            let n = input
                .read_until(b'\n', &mut line)
                .map_err(|e| CliError::failed(format!("stdin: {e}")))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            bytes += n;
            chunk.push((line_no, offset, line));
            offset += n as u64;
        }
        if chunk.is_empty() {
            break;
        }
        let answers: Vec<String> = chunk
            .par_iter()
            .map(|(no, at, line)| {
                let result = request_of_line(*no, *at, line)
                    .map(|r| r.with_defaults(defaults))
                    .and_then(|r| pick(&r).render(&r));
                render_out::jsonl_line(&result)
            })
            .collect();
        for a in &answers {
            if out.write_all(a.as_bytes()).is_err() {
                // a closed pipe (`| head`): stop quietly
                return Ok(OK);
            }
        }
    }
    let _ = out.flush();
    Ok(OK)
}

/// One line of `--jsonl` input as a request (its trailing newline and CR dropped).
fn request_of_line(no: u64, at: u64, line: &[u8]) -> Result<RenderRequest, ChatError> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = std::str::from_utf8(line).map_err(|e| ChatError::Input {
        message: format!(
            "line {no}: not UTF-8 at byte {} of the input",
            at + e.valid_up_to() as u64
        ),
    })?;
    RenderRequest::from_json(text).map_err(|e| ChatError::Input {
        message: format!("line {no}: {e}"),
    })
}

/// `--var K=V` pairs: V as JSON when it is JSON, else as text.
fn parse_vars(vars: &[String]) -> Result<Vec<(String, TemplateValue)>, CliError> {
    vars.iter()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| CliError::failed(format!("--var {kv}: expected NAME=VALUE")))?;
            if k.is_empty() {
                return Err(CliError::failed(format!("--var {kv}: the name is empty")));
            }
            let value =
                serde_json::from_str::<TemplateValue>(v).unwrap_or_else(|_| TemplateValue::from(v));
            Ok((k.to_string(), value))
        })
        .collect()
}

fn read_json(path: &Path) -> Result<TemplateValue, CliError> {
    super::readable_as(path, "a JSON file", true)?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::failed(format!("{}: {e}", path.display())))?;
    parse_json(&text, path)
}

fn parse_json(text: &str, path: &Path) -> Result<TemplateValue, CliError> {
    serde_json::from_str(text).map_err(|e| CliError {
        code: FAILED,
        message: format!("{}: not JSON: {e}", path.display()),
    })
}
