//! Failures as JavaScript exceptions: a `GgufError` (a subclass of `Error`, defined once in the
//! snippet below and exported by the package) with `rule` and `offset` when the library's error
//! is a broken rule of the spec, and the message the `gguf` command prints.
#![forbid(unsafe_code)]

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export class GgufError extends Error {
  constructor(message, rule, offset, location) {
    super(message);
    this.name = "GgufError";
    this.rule = rule ?? null;
    this.offset = offset ?? null;
    this.location = location ?? null;
  }
}
export function make_error(message, rule, offset, location) {
  return new GgufError(message, rule, offset, location);
}
export function error_ctor() {
  return GgufError;
}
"#)]
extern "C" {
    fn make_error(
        message: &str,
        rule: Option<String>,
        offset: Option<f64>,
        location: Option<String>,
    ) -> JsValue;
    fn error_ctor() -> JsValue;
}

/// The `GgufError` class, for `instanceof` checks (the package exports it as `GgufError`).
#[wasm_bindgen(js_name = errorClass)]
pub fn error_class() -> JsValue {
    error_ctor()
}

/// A library error about `location` (a file name, a URL) as a `GgufError`. A broken rule keeps
/// its rule id and byte offset; the message is the line the CLI prints, `LOCATION: ...`.
pub fn gguf_error(location: &str, e: &ggufkit::Error) -> JsValue {
    let (rule, offset) = match e.diagnostic() {
        Some(d) => (Some(d.rule.id().to_string()), Some(d.offset as f64)),
        None => (None, None),
    };
    make_error(
        &prefixed(location, &e.to_string()),
        rule,
        offset,
        Some(location.to_string()),
    )
}

/// Any other failure (a bad argument, a tokenizer or template error) as a `GgufError` without a
/// rule.
pub fn other_error(location: &str, message: &str) -> JsValue {
    make_error(
        &prefixed(location, message),
        None,
        None,
        Some(location.to_string()),
    )
}

fn prefixed(location: &str, message: &str) -> String {
    if location.is_empty() {
        message.to_string()
    } else {
        format!("{location}: {message}")
    }
}
