//! The audit's findings as SARIF 2.1.0, the format code-scanning tools read: one run, the
//! catalog of rules as `tool.driver.rules`, one result per finding located in its file by byte
//! offset, or for a template by line and column inside the template (docs/json.md says how).

use ggufkit::audit::{Finding, Severity, RULES};
use serde_json::{json, Value};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// One file's findings, already filtered to the level asked for.
pub struct Audited {
    pub file: String,
    pub findings: Vec<Finding>,
}

/// SARIF's level of a severity: the names are the same.
fn level(s: Severity) -> &'static str {
    s.name()
}

/// The SARIF document of every file audited, pretty-printed, with a newline.
pub fn audit_sarif(files: &[Audited]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let mut results = Vec::new();
    for a in files {
        for f in &a.findings {
            results.push(result(&a.file, f));
        }
    }
    let doc = json!({
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [{
            "tool": {"driver": {
                "name": "gguf audit",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

fn result(file: &str, f: &Finding) -> Value {
    let region = match f.position {
        Some((line, col)) => json!({"startLine": line, "startColumn": col}),
        None => json!({"byteOffset": f.offset}),
    };
    let mut r = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri(file)},
                "region": region,
            },
            "logicalLocations": [{"name": f.subject, "kind": "member"}],
        }],
        "properties": {"subject": f.subject, "byteOffset": f.offset},
    });
    if let Some(i) = RULES.iter().position(|x| x.id == f.rule) {
        r["ruleIndex"] = json!(i);
    }
    r
}

/// A path as a relative URI reference: characters outside RFC 3986's unreserved set and `/`
/// percent-encoded; a location that already is a URL (`https://`, `s3://`) kept as given.
fn uri(path: &str) -> String {
    if path.contains("://") {
        return path.to_string();
    }
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("models/a b#1.gguf"), "models/a%20b%231.gguf");
        assert_eq!(uri("https://h/x.gguf"), "https://h/x.gguf");
    }
}
