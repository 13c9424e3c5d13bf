//! `docs/cli.md` lists every subcommand and every flag: each long flag that `gguf CMD --help`
//! prints appears in that command's entry of the page, and every subcommand has an entry.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::run;

/// The subcommands `gguf --help` lists (and `meta`'s), as `gguf` arguments.
fn subcommands(dir: &Path) -> Vec<Vec<String>> {
    let names = |args: &[&str]| -> Vec<String> {
        let (code, out, _) = run(dir, args);
        assert_eq!(code, 0);
        let commands = out
            .split("Commands:")
            .nth(1)
            .expect("a command list")
            .split("Options:")
            .next()
            .unwrap_or("");
        commands
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|n| *n != "help")
            .map(str::to_string)
            .collect()
    };
    let mut all = Vec::new();
    for name in names(&["--help"]) {
        if name == "meta" {
            for sub in names(&["meta", "--help"]) {
                all.push(vec![name.clone(), sub]);
            }
        } else {
            all.push(vec![name]);
        }
    }
    all
}

/// The long flags in a help text (`--json`, `--max-size`, ...), without `--help`/`--version`.
fn long_flags(help: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    for word in help.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == '<') {
        let Some(rest) = word.strip_prefix("--") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !name.is_empty() && name != "help" && name != "version" {
            flags.insert(format!("--{name}"));
        }
    }
    flags
}

/// The entry of `gguf CMD` in the page: from its synopsis line to the next command's.
fn entry<'a>(page: &'a str, command: &str) -> Option<&'a str> {
    let head = format!("`gguf {command} ");
    let at = page.find(&head)?;
    let rest = &page[at + head.len()..];
    let end = rest.find("\n`gguf ").unwrap_or(rest.len());
    Some(&rest[..end])
}

#[test]
fn every_subcommand_and_flag_is_in_the_cli_page() {
    let dir = tempfile::tempdir().unwrap();
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md"))
            .expect("docs/cli.md");
    let commands = subcommands(dir.path());
    assert!(commands.len() >= 15, "{commands:?}");
    let mut missing = Vec::new();
    for cmd in &commands {
        let name = cmd.join(" ");
        let Some(text) = entry(&page, &name) else {
            missing.push(format!("gguf {name}: no entry"));
            continue;
        };
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, help, _) = run(dir.path(), &args);
        assert_eq!(code, 0, "gguf {name} --help");
        for flag in long_flags(&help) {
            if !text.contains(&flag) {
                missing.push(format!("gguf {name}: {flag}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/cli.md: {missing:#?}");
}
