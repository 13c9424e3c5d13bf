//! `gguf chat --jsonl`'s answer lines: `{"text": ...}` or `{"error": ...}`.

use ggufkit::chat::ChatError;

/// One answer line, newline included.
pub fn jsonl_line(result: &Result<String, ChatError>) -> String {
    let (key, text) = match result {
        Ok(text) => ("text", text.as_str()),
        Err(e) => return format!("{{\"error\":{}}}\n", json_string(&e.to_string())),
    };
    format!("{{\"{key}\":{}}}\n", json_string(text))
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}
