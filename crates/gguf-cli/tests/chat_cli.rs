//! `gguf chat`: a conversation from a file or stdin rendered with the file's chat template, the
//! named templates, `--var`, errors, and `--jsonl` (order kept over many lines, one answer per
//! line, errors in place). With transformers' reference at hand, `--jsonl` gives its texts.

mod common;

use std::path::Path;

use common::{gguf, run};
use ggufkit::chat::TemplateValue;
use ggufkit::write::GgufBuilder;

const TEMPLATE: &str = "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{{ eos_token }}{% endfor %}\
{% if add_generation_prompt %}<assistant>{% endif %}{% if greeting is defined %}|{{ greeting }}|{{ greeting is string }}{% endif %}";

fn model(dir: &Path) -> String {
    let mut b = GgufBuilder::new();
    b.set("tokenizer.ggml.tokens", vec!["<unk>", "<s>", "</s>"])
        .unwrap();
    b.set("tokenizer.ggml.bos_token_id", 1u32).unwrap();
    b.set("tokenizer.ggml.eos_token_id", 2u32).unwrap();
    b.set("tokenizer.chat_template", TEMPLATE).unwrap();
    b.set(
        "tokenizer.chat_template.tool_use",
        "tools={{ tools | map(attribute='name') | join(',') }}",
    )
    .unwrap();
    b.set(
        "tokenizer.chat_template.strict",
        "{% if messages[0].role != 'system' %}{{ raise_exception('System message first!') }}{% endif %}ok",
    )
    .unwrap();
    let path = dir.join("chat.gguf");
    std::fs::write(&path, b.to_vec().unwrap()).unwrap();
    "chat.gguf".to_string()
}

const CONV: &str = r#"[{"role": "user", "content": "Hi é"}, {"role": "assistant", "content": "Yo", "tool_calls": null}]"#;

#[test]
fn renders_from_a_file_or_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let f = model(dir.path());
    std::fs::write(dir.path().join("m.json"), CONV).unwrap();
    let (code, out, err) = run(dir.path(), &["chat", &f, "--messages", "m.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "<s><user>Hi é</s><assistant>Yo</s>");
    let out = gguf(dir.path())
        .args([
            "chat",
            &f,
            "--add-generation-prompt",
            "--var",
            "greeting=hello",
            "--var",
            "n=3",
        ])
        .write_stdin(CONV)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "<s><user>Hi é</s><assistant>Yo</s><assistant>|hello|True"
    );
    // V is JSON when it is JSON
    let (_, out, _) = run(
        dir.path(),
        &[
            "chat",
            &f,
            "--messages",
            "m.json",
            "--var",
            "greeting=[1, null]",
        ],
    );
    assert!(out.ends_with("|[1, None]|False"), "{out}");
}

#[test]
fn named_templates_and_tool_use() {
    let dir = tempfile::tempdir().unwrap();
    let f = model(dir.path());
    std::fs::write(dir.path().join("m.json"), CONV).unwrap();
    std::fs::write(
        dir.path().join("t.json"),
        r#"[{"name": "a"}, {"name": "b"}]"#,
    )
    .unwrap();
    // tools given: transformers picks tool_use when the file has it
    let (code, out, err) = run(
        dir.path(),
        &["chat", &f, "--messages", "m.json", "--tools", "t.json"],
    );
    assert_eq!((code, out.as_str()), (0, "tools=a,b"), "{err}");
    let (code, out, _) = run(
        dir.path(),
        &[
            "chat",
            &f,
            "--messages",
            "m.json",
            "--tools",
            "t.json",
            "--template",
            "strict",
        ],
    );
    assert_eq!(code, 2);
    assert!(out.is_empty());
    let (code, _, err) = run(
        dir.path(),
        &["chat", &f, "--messages", "m.json", "--template", "strict"],
    );
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "gguf: chat.gguf: System message first!");
    let (code, _, err) = run(
        dir.path(),
        &["chat", &f, "--messages", "m.json", "--template", "rag"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("no chat template 'tokenizer.chat_template.rag'")
            && err.contains("tokenizer.chat_template.tool_use, tokenizer.chat_template.strict"),
        "{err}"
    );
}

#[test]
fn bad_input_is_refused_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let f = model(dir.path());
    std::fs::write(dir.path().join("bad.json"), "[{").unwrap();
    let (code, _, err) = run(dir.path(), &["chat", &f, "--messages", "bad.json"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("gguf: bad.json: not JSON"), "{err}");
    let (code, _, err) = run(dir.path(), &["chat", &f, "--messages", "absent.json"]);
    assert_eq!(code, 2);
    assert!(err.contains("absent.json: no such file"), "{err}");
    let (code, _, err) = run(dir.path(), &["chat", &f, "--var", "novalue"]);
    assert_eq!(code, 2);
    assert!(err.contains("--var novalue: expected NAME=VALUE"), "{err}");
    let out = gguf(dir.path())
        .args(["chat", &f])
        .write_stdin("[]")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty conversation"));
}

#[test]
fn jsonl_answers_every_line_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let f = model(dir.path());
    // more lines than one chunk, some bad, one not UTF-8
    let mut input = Vec::new();
    let n = 10_000;
    for i in 0..n {
        let line = match i % 1000 {
            7 => "{\"messages\": [".to_string(),
            8 => "{\"messages\": [], \"add_generation_prompt\": true}".to_string(),
            9 => "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"tools\": [{\"name\": \"t\"}]}"
                .to_string(),
            _ => format!(
                "{{\"messages\": [{{\"role\": \"user\", \"content\": \"m{i}\"}}], \"add_generation_prompt\": {}, \"kwargs\": {{\"greeting\": \"g{i}\"}}}}",
                i % 2 == 0
            ),
        };
        input.extend(line.as_bytes());
        if i == 4321 {
            input.extend(b"\xff");
        }
        input.push(b'\n');
    }
    let out = gguf(dir.path())
        .args(["chat", &f, "--jsonl", "--var", "greeting=default"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), n);
    for (i, l) in lines.iter().enumerate() {
        match i % 1000 {
            7 => assert!(l["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("line {}: not a JSON request", i + 1))),
            8 => assert!(l["error"].as_str().unwrap().contains("empty conversation")),
            9 => assert_eq!(l["text"], "tools=t", "the line's tools pick tool_use"),
            _ if i == 4321 => {
                let e = l["error"].as_str().unwrap();
                assert!(e.starts_with("line 4322: not UTF-8 at byte"), "{e}");
            }
            _ => {
                let gen = if i % 2 == 0 { "<assistant>" } else { "" };
                assert_eq!(
                    l["text"],
                    format!("<s><user>m{i}</s>{gen}|g{i}|True"),
                    "line {}",
                    i + 1
                );
            }
        }
    }
}

/// The transformers reference's cases of the corpus's default templates, through `--jsonl`.
#[test]
fn jsonl_matches_transformers_on_the_corpus() {
    let Some(reference) = std::env::var_os("GGUFKIT_CHAT_REFERENCE")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            let home = std::env::var_os("HOME")?;
            Some(
                Path::new(&home)
                    .join(".cache/ggufkit/chat-reference/transformers-5.25.0/cases.jsonl"),
            )
        })
        .filter(|p| p.is_file())
    else {
        return ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::RefPython,
            "no chat reference (scripts/chat-reference.sh renders it with transformers)",
        );
    };
    let text = std::fs::read_to_string(reference).unwrap();
    // rows kept as template values: their maps keep the reference's key order
    let mut by_file: std::collections::BTreeMap<String, Vec<TemplateValue>> = Default::default();
    for line in text.lines() {
        let row: TemplateValue = serde_json::from_str(line).unwrap();
        let source = row.get_attr("source").unwrap();
        // the file under this checkout's corpus (the reference may have been made elsewhere)
        let (Some(rel), Some(corpus), true) = (
            source
                .get_attr("corpus")
                .unwrap()
                .as_str()
                .map(str::to_string),
            ggufkit_testkit::shared::corpus(),
            source.get_attr("name").unwrap().is_none(),
        ) else {
            continue;
        };
        let path = corpus.join(rel).display().to_string();
        if row.get_attr("tools").unwrap().is_none() {
            by_file.entry(path).or_default().push(row);
        }
    }
    let (mut same, mut total) = (0, 0);
    for (path, rows) in &by_file {
        let mut input = String::new();
        for r in rows {
            let req = TemplateValue::from_pairs(
                ["messages", "add_generation_prompt", "kwargs"]
                    .map(|k| (k, r.get_attr(k).unwrap())),
            );
            input.push_str(&serde_json::to_string(&req).unwrap());
            input.push('\n');
        }
        let out = gguf(Path::new("."))
            .args(["chat", path, "--jsonl"])
            .write_stdin(input)
            .output()
            .unwrap();
        let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), rows.len(), "{path}");
        for (r, a) in rows.iter().zip(&answers) {
            total += 1;
            let e: serde_json::Value = serde_json::from_str(
                &serde_json::to_string(&r.get_attr("expect").unwrap()).unwrap(),
            )
            .unwrap();
            if e.get("text").is_some() && e["text"] == a["text"]
                || e.get("error").is_some() && a.get("error").is_some()
            {
                same += 1;
            } else {
                println!(
                    "{path} [{}]: want {e}, got {a}",
                    r.get_attr("case").unwrap()
                );
            }
        }
    }
    println!("gguf chat --jsonl: {same}/{total} cases identical to transformers");
    assert_eq!(same, total);
}
