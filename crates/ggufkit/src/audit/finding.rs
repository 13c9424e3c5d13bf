//! One finding of the audit: rule id, severity, where, what.
#![forbid(unsafe_code)]

/// How bad a finding is; ordered so that `Error > Warning > Note`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing, harmless by itself.
    Note,
    /// Suspicious or likely to break a loader.
    Warning,
    /// Dangerous or certainly broken.
    Error,
}

impl Severity {
    /// `error`, `warning` or `note` (SARIF's level names too).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The severity a name gives, `None` for an unknown name.
    pub fn from_name(s: &str) -> Option<Severity> {
        match s {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// One finding: which rule, how severe, the key or tensor and its byte offset, and for templates
/// the 1-based line and column inside the template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    /// The key or tensor name concerned.
    pub subject: String,
    /// Byte offset of that key-value pair or tensor info in the file.
    pub offset: u64,
    pub message: String,
    /// Line and column (1-based, in characters) inside a template.
    pub position: Option<(u32, u32)>,
}

impl Finding {
    /// A finding without a template position.
    pub fn new(
        rule: &'static str,
        severity: Severity,
        subject: &str,
        offset: u64,
        message: String,
    ) -> Finding {
        Finding {
            rule,
            severity,
            subject: subject.to_string(),
            offset,
            message,
            position: None,
        }
    }
}
