//! Chat templates rendered by ggufkit against transformers' `apply_chat_template` (the
//! reference): every real template we have (the corpus's `tokenizer.chat_template*` keys and
//! llama.cpp's models/templates/*.jinja) over conversations of many shapes, and small synthetic
//! templates that each probe one place where Jinja2 and minijinja could part (printing,
//! operators, filters, methods, loops, errors), as `scripts/chat_reference.py` rendered them
//! with transformers into a cache outside the clone (`.ci/run` makes it). Prints the first
//! difference of each template and the counts; SKIPPED when the reference file is absent.
//!
//! Texts must be identical. Errors are compared as follows:
//!
//! - `raise_exception(msg)`: our [`ChatError::Raised`] carries exactly `msg`. The message is
//!   the template's own text, so equality is the only right test.
//! - A request transformers refuses before rendering (an empty conversation): our
//!   [`ChatError::Input`].
//! - Every other failure is compared by kind, not by words: the Python exception class
//!   transformers surfaced (`UndefinedError`, `TypeError`, `SecurityError`,
//!   `TemplateAssertionError`/`TemplateRuntimeError` for an unknown filter, `ValueError`,
//!   `ZeroDivisionError`, `TemplateSyntaxError`) against our [`RenderFailure`] (or
//!   [`ChatError::Syntax`]). The words cannot match and need not: Jinja2's say what Python
//!   objects are involved (`'dict object' has no attribute 'content'`, built from the names of
//!   Python's types and of the undefined expression, which minijinja's undefined values do not
//!   keep), minijinja's say what its value kinds are (`map`, `sequence`); a caller acts on what
//!   went wrong (a variable the template expected, a value of the wrong type, a forbidden
//!   operation), which the kind carries. Where ggufkit itself evaluates as Python does (`+`,
//!   `%`, `tojson`), the message is Python's word for word (`TypeError: can only concatenate
//!   str (not "int") to str`).
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use ggufkit::chat::{ChatTemplate, RenderRequest, SpecialTokens, TemplateValue};
use ggufkit::error::{ChatError, RenderFailure};
use ggufkit::Gguf;
use ggufkit_testkit::skip::{skip, Need};
use ggufkit_testkit::{reference, shared};

/// 2025-03-07 14:05:09, the instant the reference froze `datetime.now()` at.
const FIXED_NOW: i64 = 1_741_356_309;

/// Templates where ggufkit does not yet do what Jinja2 does, and why (all of them synthetic:
/// the small templates `scripts/chat_reference.py` writes to probe one behaviour each). Their
/// differing cases are counted apart (and each must still differ, so that the list does not go
/// stale).
const KNOWN: &[(&str, &str)] = &[(
    "synthetic:error_dunder",
    "deliberate: the sandbox refuses a template that names `__class__` (audit rule \
         template.dunder), where Jinja2's sandbox renders it as undefined",
)];

/// The version of transformers the reference was made with (the cache is keyed by it).
const TRANSFORMERS: &str = "5.25.0";

fn reference_file() -> PathBuf {
    if let Some(p) = std::env::var_os("GGUFKIT_CHAT_REFERENCE") {
        return PathBuf::from(p);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache
        .join("ggufkit/chat-reference")
        .join(format!("transformers-{TRANSFORMERS}"))
        .join("cases.jsonl")
}

/// The file a case's template comes from, found in this checkout's surroundings: `corpus` under
/// ../shared/corpus, `gemma` the Gemma 3 model, `llama_cpp` under llama.cpp's sources (the
/// absolute `gguf`/`jinja` path the reference was made from when those are absent). `None`
/// (with a SKIPPED line from the finder) when the file is not on this machine.
fn file_of(source: &serde_json::Value) -> Option<PathBuf> {
    if let Some(rel) = source["corpus"].as_str() {
        return shared::corpus().map(|c| c.join(rel));
    }
    if source["gemma"].as_bool() == Some(true) {
        return reference::gemma();
    }
    if let Some(rel) = source["llama_cpp"].as_str() {
        return reference::llama_cpp_src().map(|s| s.join(rel));
    }
    source["gguf"]
        .as_str()
        .or(source["jinja"].as_str())
        .map(PathBuf::from)
}

/// The template of a row: `Ok(None)` when its file is not on this machine.
fn template_of(row: &serde_json::Value) -> Result<Option<ChatTemplate>, ChatError> {
    let input = |message: String| ChatError::Input { message };
    let source = &row["source"];
    let mut tokens = SpecialTokens::new();
    if let Some(map) = row["special_tokens"].as_object() {
        for (k, v) in map {
            tokens.set(k, v.as_str().unwrap_or_default());
        }
    }
    if let Some(text) = source["text"].as_str() {
        return ChatTemplate::new(text, tokens).map(Some);
    }
    let Some(path) = file_of(source) else {
        return Ok(None);
    };
    if !path.exists() {
        return Ok(None);
    }
    if source["gguf"].is_string() {
        let g = Gguf::open(&path).map_err(|e| input(format!("{}: {e}", path.display())))?;
        return ChatTemplate::from_gguf(&g, source["name"].as_str()).map(Some);
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| input(format!("{}: {e}", path.display())))?;
    ChatTemplate::new(&text, tokens).map(Some)
}

/// The request of one case, its maps in the reference file's key order.
fn request_of(line: &str) -> RenderRequest {
    let v: TemplateValue = serde_json::from_str(line).expect("a JSON line");
    let get = |k: &str| {
        v.get_attr(k)
            .ok()
            .filter(|x| !x.is_undefined() && !x.is_none())
    };
    RenderRequest {
        messages: get("messages").unwrap_or_default(),
        tools: get("tools"),
        documents: None,
        add_generation_prompt: get("add_generation_prompt").is_some_and(|x| x.is_true()),
        kwargs: get("kwargs")
            .map(|k| {
                k.try_iter()
                    .unwrap()
                    .map(|key| (key.to_string(), k.get_item(&key).unwrap()))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// Where two texts first differ, with a little context.
fn first_difference(want: &str, got: &str) -> String {
    let at = want
        .char_indices()
        .zip(got.chars())
        .find(|((_, a), b)| a != b)
        .map(|((i, _), _)| i)
        .unwrap_or(want.len().min(got.len()));
    let at = (0..=at)
        .rev()
        .find(|i| want.is_char_boundary(*i) && got.is_char_boundary(*i))
        .unwrap_or(0);
    let from = (0..=at.saturating_sub(40))
        .rev()
        .find(|i| want.is_char_boundary(*i) && got.is_char_boundary(*i))
        .unwrap_or(0);
    let end = |s: &str| {
        (at + 60..=s.len())
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(s.len())
    };
    format!(
        "at byte {at}:\n      want {:?}\n      got  {:?}",
        &want[from..end(want)],
        &got[from..end(got)]
    )
}

/// Whether ggufkit's error is the one transformers raised: `raise_exception`'s message word for
/// word, a refused request for a refused request, and for the other failures the same kind
/// (see the file's documentation for why the kind and not the words).
fn same_failure(kind: &str, class: Option<&str>, want: &str, got: &ChatError) -> bool {
    use RenderFailure as F;
    match (kind, got) {
        ("raise", ChatError::Raised { message }) => message == want,
        ("raise", _) => false,
        ("input", e) => matches!(e, ChatError::Input { .. }),
        (_, ChatError::Render { kind, .. }) => match class {
            Some("UndefinedError") => *kind == F::Undefined,
            Some("TypeError") => *kind == F::Type,
            // Jinja2 finds an unknown filter when compiling, or when running a branch it
            // could not check (TemplateRuntimeError)
            Some("TemplateAssertionError" | "TemplateRuntimeError") => *kind == F::UnknownFilter,
            Some("SecurityError") => *kind == F::Unsafe,
            Some("ValueError" | "KeyError" | "IndexError" | "OverflowError") => *kind == F::Value,
            Some("ZeroDivisionError") => *kind == F::ZeroDivision,
            Some(_) => false,
            // a reference made before classes were recorded: any failure of the template
            None => true,
        },
        (_, ChatError::Syntax { .. }) => matches!(class, Some("TemplateSyntaxError") | None),
        (_, ChatError::Limit { .. }) => matches!(class, Some("RecursionError") | None),
        (_, ChatError::Refused { .. }) => matches!(class, Some("SecurityError") | None),
        _ => false,
    }
}

#[test]
fn identical_to_transformers_on_every_real_template() {
    let path = reference_file();
    let Ok(text) = std::fs::read_to_string(&path) else {
        return skip(
            Need::RefPython,
            format!(
                "no chat reference at {} (scripts/chat-reference.sh renders it with transformers {TRANSFORMERS})",
                path.display()
            ),
        );
    };
    let mut templates: HashMap<String, Result<Option<ChatTemplate>, ChatError>> = HashMap::new();
    let mut absent = 0;
    let mut by_class: std::collections::BTreeMap<String, usize> = Default::default();
    // GGUFKIT_CHAT_DUMP=PATH: every case's text or error beside transformers', one JSON line each
    let mut dump = std::env::var_os("GGUFKIT_CHAT_DUMP")
        .and_then(|p| std::fs::File::create(p).ok())
        .map(std::io::BufWriter::new);
    let (mut total, mut same_text, mut same_error, mut differ) = (0, 0, 0, 0);
    let mut reported: HashMap<String, usize> = HashMap::new();
    let mut differing_templates = Vec::new();
    let (mut known, mut known_seen) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let id = row["template"].as_str().unwrap_or_default().to_string();
        let case = row["case"].as_str().unwrap_or_default();
        total += 1;
        let template = templates.entry(id.clone()).or_insert_with(|| {
            let t = template_of(&row);
            if let Ok(Some(t)) = &t {
                t.set_fixed_time(Some(FIXED_NOW));
            }
            t
        });
        let got = match template {
            Ok(Some(t)) => t.render(&request_of(line)),
            Ok(None) => {
                absent += 1;
                continue;
            }
            Err(e) => Err(e.clone()),
        };
        let expect = &row["expect"];
        if let Some(dump) = &mut dump {
            let got = match &got {
                Ok(t) => serde_json::json!({ "text": t }),
                Err(e) => serde_json::json!({ "error": e.to_string() }),
            };
            let line =
                serde_json::json!({"template": id, "case": case, "got": got, "expect": expect});
            let _ = writeln!(dump, "{line}");
        }
        let problem = match (expect["text"].as_str(), &got) {
            (Some(want), Ok(got)) if want == got => {
                same_text += 1;
                None
            }
            (Some(want), Ok(got)) => Some(first_difference(want, got)),
            (Some(_), Err(e)) => Some(format!("transformers renders, ggufkit fails: {e}")),
            (None, Ok(got)) => Some(format!(
                "transformers fails ({}), ggufkit renders {:?}",
                expect["error"],
                got.chars().take(120).collect::<String>()
            )),
            (None, Err(e)) => {
                let kind = expect["kind"].as_str().unwrap_or_default();
                let class = expect["class"].as_str();
                let want = expect["error"].as_str().unwrap_or_default();
                if same_failure(kind, class, want, e) {
                    same_error += 1;
                    *by_class
                        .entry(class.unwrap_or(kind).to_string())
                        .or_insert(0) += 1;
                    None
                } else {
                    Some(format!(
                        "transformers fails ({kind} {}: {want}), ggufkit: {e:?}",
                        class.unwrap_or("?")
                    ))
                }
            }
        };
        if let Some(p) = problem {
            if let Some((_, why)) = KNOWN.iter().find(|(t, _)| *t == id) {
                if !known_seen.contains(&id) {
                    println!("KNOWN {id} [{case}]: {p}\n      why: {why}");
                    known_seen.push(id.clone());
                }
                known += 1;
                continue;
            }
            differ += 1;
            let n = reported.entry(id.clone()).or_insert(0);
            if *n == 0 {
                println!("DIFFERENT {id} [{case}]: {p}");
                differing_templates.push(id.clone());
            }
            *n += 1;
        }
    }
    println!(
        "{} templates, {total} cases: {} identical ({same_text} texts, {same_error} errors), \
         {known} known differences, {differ} other differences in {} templates \
         ({absent} cases of templates whose file is not on this machine)",
        templates.len(),
        same_text + same_error,
        differing_templates.len()
    );
    println!("errors identical in kind, by Python exception: {by_class:?}");
    if absent > 0 {
        skip(
            Need::Shared,
            format!(
                "{absent} of {total} reference cases have a template file that is not on this machine \
                 (remake the reference with scripts/chat-reference.sh)"
            ),
        );
    }
    assert_eq!(differ, 0, "cases that differ from transformers (see above)");
    for (t, _) in KNOWN {
        assert!(
            known_seen.iter().any(|s| s == t) || !templates.contains_key(*t),
            "{t} is listed as a known difference but renders identically: remove it from KNOWN"
        );
    }
}
