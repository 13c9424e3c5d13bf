//! `gguf`: the command line of ggufkit. This file only parses arguments and dispatches; each
//! subcommand lives in `cmd/`, output formatting in `output/`.
#![forbid(unsafe_code)]

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => cmd::info::run(a),
        Command::Dump(a) => cmd::dump::run(a),
        Command::Validate(a) => cmd::validate::run(a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(e.code)
        }
    }
}
