//! `gguf`: the command line of ggufkit. This file only parses arguments and dispatches; each
//! subcommand lives in `cmd/`, output formatting in `output/`.
#![forbid(unsafe_code)]

mod batch;
mod cmd;
mod output;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Inspect, validate and dump GGUF model files.
#[derive(Parser)]
#[command(name = "gguf", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A human summary of each file.
    Info(cmd::info::Args),
    /// Everything in the header.
    Dump(cmd::dump::Args),
    /// Check files against the spec and against what ggml loads (exit 0 valid, 1 invalid, 2 error).
    Validate(cmd::validate::Args),
    /// What a valid file can still hide: dangerous chat templates, a tokenizer or hyperparameters
    /// that contradict the file (exit 0 nothing at --severity, default warning, 1 found, 2 error).
    Audit(cmd::audit::Args),
    /// Metadata: read one value (get), set or remove keys (in place or into a new file).
    Meta(cmd::meta::Args),
    /// Rewrite a file as the writer lays it out, optionally in the other byte order.
    Convert(cmd::convert::Args),
    /// Quantize a model as llama-quantize does: a preset's per-tensor types, byte-identical output.
    Quantize(cmd::quantize::Args),
    /// A quantized file's type mix as a --tensor-type-file, and the preset it matches.
    Recipe(cmd::recipe::Args),
    /// Split a model into shards compatible with llama.cpp's gguf-split.
    Split(cmd::split::Args),
    /// Merge the shards of a split model into one file.
    Merge(cmd::merge::Args),
    /// Cut a GGUF out of a larger file.
    Carve(cmd::carve::Args),
    /// Export one tensor to .npy, or every tensor to .safetensors, dequantized.
    Export(cmd::export::Args),
    /// The tensor table: name, type, shape, elements, bytes, offset, with totals.
    Tensors(cmd::tensors::Args),
    /// What differs between two files: header, metadata, tensors (data by hash); exit 1 if any.
    Diff(cmd::diff::Args),
    /// Hash every tensor and the whole data section; --check verifies a manifest (exit 1 on mismatch).
    Hash(cmd::hash::Args),
    /// The byte map of a file as the spec structures it: every field's offset, length and value.
    Layout(cmd::layout::Args),
    /// One self-contained HTML page: summary, searchable tables, where the bytes go, the layout.
    Report(cmd::report::Args),
    /// Index files, folders and URLs into Parquet (or JSON Lines) tables: files, metadata,
    /// tensors, findings.
    Scan(cmd::scan::Args),
    /// Token ids of a text as llama.cpp's llama_tokenize gives them, with the file's tokenizer.
    Tokenize(cmd::tokenize::Args),
    /// The text of token ids as llama.cpp's llama_detokenize gives it, with the file's tokenizer.
    Detokenize(cmd::detokenize::Args),
    /// Render a conversation with the file's chat template, as transformers'
    /// apply_chat_template does (--jsonl: one request per stdin line).
    Chat(cmd::chat::Args),
}

/// Exit code after an interrupt: 128 + SIGINT, as shells report it.
const INTERRUPTED: i32 = 130;

fn main() -> ExitCode {
    // an interrupted write leaves no temporary file behind, and its target as it was
    let _ = ctrlc::set_handler(|| {
        ggufkit::write::atomic::remove_unfinished();
        std::process::exit(INTERRUPTED);
    });
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Dump(a) => cmd::dump::run(a),
        Command::Validate(a) => cmd::validate::run(a),
        Command::Audit(a) => cmd::audit::run(a),
        Command::Meta(a) => cmd::meta::run(a),
        Command::Convert(a) => cmd::convert::run(a),
        Command::Quantize(a) => cmd::quantize::run(a),
        Command::Recipe(a) => cmd::recipe::run(a),
        Command::Split(a) => cmd::split::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Carve(a) => cmd::carve::run(a),
        Command::Export(a) => cmd::export::run(a),
        Command::Tensors(a) => cmd::tensors::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Hash(a) => cmd::hash::run(a),
        Command::Layout(a) => cmd::layout::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Scan(a) => cmd::scan::run(a),
        Command::Tokenize(a) => cmd::tokenize::run(a),
        Command::Detokenize(a) => cmd::detokenize::run(a),
        Command::Chat(a) => cmd::chat::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(e.code)
        }
    }
}
