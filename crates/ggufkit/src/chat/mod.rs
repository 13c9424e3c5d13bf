//! Chat templates rendered as transformers' `apply_chat_template(messages, tools=...,
//! add_generation_prompt=..., tokenize=False, **kwargs)` renders them, from the
//! `tokenizer.chat_template` (or `tokenizer.chat_template.NAME`) of a GGUF, with minijinja.
//!
//! One file per idea: [`environment`] (the Jinja settings and the sandbox's limits),
//! `escapes` (Python's string escapes, `\N{NAME}` included), `functions` (transformers' globals and filters), `globals` (Jinja2's own: `range`,
//! `cycler`, `joiner`, `lipsum`), `python` (values printed as Python
//! prints them), `rewrite` and `operators` (the template's `+`, `%`, `~` evaluated as Python
//! does, markupsafe's `Markup` included), `printf` (Python's `'%s' % x`), `json` (Python's `json.dumps` behind `tojson`), `clock` (`strftime_now`),
//! [`tokens`] (the special-token variables) and [`messages`] (the request and how the messages
//! are normalised).
//!
//! ```
//! use ggufkit::chat::{ChatTemplate, RenderRequest, SpecialTokens};
//!
//! let mut tokens = SpecialTokens::new();
//! tokens.set("bos_token", "<s>");
//! let t = ChatTemplate::new(
//!     "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}",
//!     tokens,
//! )?;
//! let req = RenderRequest::from_json(r#"{"messages": [{"role": "user", "content": "Hi"}]}"#)?;
//! assert_eq!(t.render(&req)?, "<s>[user] Hi\n");
//! # Ok::<(), ggufkit::error::ChatError>(())
//! ```
#![forbid(unsafe_code)]

mod clock;
pub mod environment;
mod escapes;
mod functions;
mod globals;
mod json;
pub mod messages;
mod methods;
mod operators;
mod printf;
mod python;
mod rewrite;
#[cfg(test)]
mod tests;
pub mod tokens;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use minijinja::Environment;

pub use crate::error::{ChatError, RenderFailure};
pub use messages::RenderRequest;
pub use minijinja::Value as TemplateValue;
pub use tokens::SpecialTokens;

use crate::Gguf;
use environment::TEMPLATE_NAME;
use functions::{Raised, SYSTEM_CLOCK};

/// The audit's rules whose templates the sandbox refuses to render: they reach for Python's
/// internals or the host, which minijinja cannot give them, so what they mean to do is no
/// chat formatting.
const REFUSED_RULES: [&str; 3] = ["template.dunder", "template.escape-global", "template.exec"];

/// The key of the default template.
pub const TEMPLATE_KEY: &str = "tokenizer.chat_template";

/// The key of a template: the default one for `None`, `tokenizer.chat_template.NAME` otherwise.
pub fn template_key(name: Option<&str>) -> String {
    match name {
        None => TEMPLATE_KEY.to_string(),
        Some(n) => format!("{TEMPLATE_KEY}.{n}"),
    }
}

/// The names of the named templates a file has (`tool_use`, `rag`, ...), in file order.
pub fn template_names(gguf: &Gguf<'_>) -> Vec<String> {
    let prefix = format!("{TEMPLATE_KEY}.");
    gguf.metadata()
        .filter_map(|kv| kv.key().strip_prefix(&prefix).map(str::to_string))
        .collect()
}

/// The template transformers picks when none is named: `tool_use` when tools are given and the
/// file has that template, otherwise the default (`None`).
pub fn default_name(gguf: &Gguf<'_>, has_tools: bool) -> Option<&'static str> {
    (has_tools && gguf.get_kv(&template_key(Some("tool_use"))).is_some()).then_some("tool_use")
}

/// A compiled chat template and the special tokens it is rendered with. Cheap to share between
/// threads; each [`render`](Self::render) is independent.
#[derive(Debug)]
pub struct ChatTemplate {
    env: Environment<'static>,
    key: String,
    tokens: SpecialTokens,
    clock: Arc<AtomicI64>,
}

impl ChatTemplate {
    /// The template `name` (`None`: `tokenizer.chat_template`) of an opened file, with the
    /// file's special tokens. `default` names `tokenizer.chat_template` too, unless the file has
    /// a template of that name (transformers calls the main template `default`).
    pub fn from_gguf(gguf: &Gguf<'_>, name: Option<&str>) -> Result<Self, ChatError> {
        let mut key = template_key(name);
        if name == Some("default") && gguf.get_kv(&key).is_none() {
            key = TEMPLATE_KEY.to_string();
        }
        let Some(kv) = gguf.get_kv(&key) else {
            let mut available: Vec<String> = gguf
                .get_kv(TEMPLATE_KEY)
                .map(|_| TEMPLATE_KEY.to_string())
                .into_iter()
                .collect();
            available.extend(template_names(gguf).iter().map(|n| template_key(Some(n))));
            return Err(ChatError::NoTemplate { key, available });
        };
        let Some(source) = kv.value.as_str() else {
            return Err(ChatError::NotText { key });
        };
        Self::with_key(source, SpecialTokens::from_gguf(gguf), key)
    }

    /// A template from its source text, with the given special tokens.
    pub fn new(source: &str, tokens: SpecialTokens) -> Result<Self, ChatError> {
        Self::with_key(source, tokens, "template".to_string())
    }

    fn with_key(source: &str, tokens: SpecialTokens, key: String) -> Result<Self, ChatError> {
        if let Some(f) = crate::audit::audit_template(&key, 0, source)
            .into_iter()
            .find(|f| REFUSED_RULES.contains(&f.rule))
        {
            return Err(ChatError::Refused {
                key,
                rule: f.rule.to_string(),
                message: f.message,
            });
        }
        let clock = Arc::new(AtomicI64::new(SYSTEM_CLOCK));
        let mut env = environment::environment(Arc::clone(&clock));
        env.add_template_owned(TEMPLATE_NAME, environment::prepare(source))
            .map_err(|e| ChatError::Syntax {
                key: key.clone(),
                message: e.detail().unwrap_or("syntax error").to_string(),
                line: e.line().unwrap_or(0),
            })?;
        Ok(Self {
            env,
            key,
            tokens,
            clock,
        })
    }

    /// Where the template came from: its metadata key, or `template` for a string.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The special tokens the template sees.
    pub fn special_tokens(&self) -> &SpecialTokens {
        &self.tokens
    }

    /// Makes `strftime_now` write this wall-clock time instead of the local time of the render,
    /// for reproducible output; `None` goes back to the system clock. The time is given as the
    /// Unix seconds at which a UTC clock shows it, and written as it is, whatever the local
    /// time zone (as a frozen `datetime.now()` would be: Python's naive local time).
    pub fn set_fixed_time(&self, unix_seconds: Option<i64>) {
        let v = unix_seconds.map_or(SYSTEM_CLOCK, |t| t.max(SYSTEM_CLOCK + 1));
        self.clock.store(v, Ordering::Relaxed);
    }

    /// The text of one conversation. The template's `raise_exception` is
    /// [`ChatError::Raised`]; a request transformers refuses is [`ChatError::Input`].
    pub fn render(&self, req: &RenderRequest) -> Result<String, ChatError> {
        let ctx = messages::context(req, &self.tokens)?;
        let template = self
            .env
            .get_template(TEMPLATE_NAME)
            .map_err(|e| render_error(&e))?;
        template.render(ctx).map_err(|e| render_error(&e))
    }
}

/// A failed render as a [`ChatError`]: the template's own message when it raised.
fn render_error(e: &minijinja::Error) -> ChatError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<Raised>() {
            return ChatError::Raised {
                message: r.0.clone(),
            };
        }
        source = s.source();
    }
    let detail = e.detail().unwrap_or_default();
    if e.kind() == minijinja::ErrorKind::OutOfFuel || detail.contains("recursion limit") {
        return ChatError::Limit {
            message: if detail.is_empty() {
                e.kind().to_string()
            } else {
                detail.to_string()
            },
        };
    }
    ChatError::Render {
        kind: failure_kind(e),
        message: if detail.is_empty() {
            e.kind().to_string()
        } else {
            format!("{}: {detail}", e.kind())
        },
        line: e.line().unwrap_or(0),
    }
}

/// The kind of a failed render, as the exception Jinja2 raises for the same failure: from the
/// Python exception name our own functions put first in their message, else from minijinja's
/// error kind and wording.
fn failure_kind(e: &minijinja::Error) -> RenderFailure {
    use minijinja::ErrorKind as K;
    let detail = e.detail().unwrap_or_default();
    let python = detail.split_once(':').map_or("", |(head, _)| head);
    match python {
        "TypeError" => return RenderFailure::Type,
        "ZeroDivisionError" => return RenderFailure::ZeroDivision,
        "ValueError" | "KeyError" | "OverflowError" | "IndexError" => return RenderFailure::Value,
        "SecurityError" => return RenderFailure::Unsafe,
        _ => {}
    }
    match e.kind() {
        K::UndefinedError | K::UnknownFunction => RenderFailure::Undefined,
        K::UnknownFilter | K::UnknownTest => RenderFailure::UnknownFilter,
        // a missing method is an undefined attribute in Jinja2 (the sandbox's refusals of
        // list and dict mutation come from `methods` as SecurityError)
        K::UnknownMethod => RenderFailure::Undefined,
        K::CannotUnpack => RenderFailure::Value,
        K::TooManyArguments | K::MissingArgument => RenderFailure::Type,
        K::InvalidOperation if detail.contains("unable to calculate") && detail.ends_with(" 0") => {
            RenderFailure::ZeroDivision
        }
        K::InvalidOperation if detail.contains("undefined") => RenderFailure::Undefined,
        K::InvalidOperation => RenderFailure::Type,
        _ => RenderFailure::Other,
    }
}
