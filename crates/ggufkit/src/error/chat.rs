//! Chat templates that cannot be found, parsed or rendered.
#![forbid(unsafe_code)]

/// Why a chat template could not be rendered ([`Error::Chat`](super::Error::Chat)).
///
/// A template's own `raise_exception(...)` is [`ChatError::Raised`] with the template's message,
/// word for word; every other failure while rendering is [`ChatError::Render`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// The file has no template under this key.
    #[error(
        "no chat template '{key}' in the metadata{}",
        available_list(available)
    )]
    NoTemplate {
        /// The key asked for (`tokenizer.chat_template` or `tokenizer.chat_template.NAME`).
        key: String,
        /// The template keys the file has.
        available: Vec<String>,
    },
    /// The template key holds something other than a UTF-8 string.
    #[error("key '{key}' is not a UTF-8 string, so it is not a chat template")]
    NotText {
        /// The key.
        key: String,
    },
    /// The template's syntax is not Jinja's.
    #[error("{key}: the template does not parse: {message} (line {line})")]
    Syntax {
        /// Where the template came from (its key, or `template` for a string).
        key: String,
        /// minijinja's description of the syntax error.
        message: String,
        /// The line of the error, from 1.
        line: usize,
    },
    /// The audit flags the template as reaching for Python's internals or the host
    /// (`gguf audit`'s rules `template.dunder`, `template.escape-global`, `template.exec`): the
    /// sandbox refuses to render it, as Jinja2's sandbox refuses such access.
    #[error(
        "{key}: the template is refused on purpose: the sandbox renders no template that reaches \
         for Python's internals or the host ({message}) [{rule}]"
    )]
    Refused {
        /// Where the template came from.
        key: String,
        /// The audit rule that flags it.
        rule: String,
        /// The audit's finding.
        message: String,
    },
    /// The request is not what `apply_chat_template` accepts (an empty conversation, a message
    /// that is not a mapping, a keyword argument that shadows a fixed variable).
    #[error("{message}")]
    Input {
        /// What is wrong.
        message: String,
    },
    /// The template called `raise_exception(message)`.
    #[error("{message}")]
    Raised {
        /// The template's message, as it gave it.
        message: String,
    },
    /// The template failed while rendering (an undefined attribute, a type error, an unknown
    /// filter, an unsafe operation).
    #[error("{message} (line {line})")]
    Render {
        /// What kind of failure, as Jinja2's exception class would say.
        kind: RenderFailure,
        /// minijinja's description of the failure.
        message: String,
        /// The line of the template being rendered, from 1 (0 when unknown).
        line: usize,
    },
    /// The template used more work or memory than a render may (a huge loop, runaway
    /// recursion): the sandbox stopped it.
    #[error("the template exceeded the rendering limits: {message}")]
    Limit {
        /// Which limit.
        message: String,
    },
}

/// The kind of a failed render, named after the Python exception Jinja2 raises for it: the
/// words of minijinja's messages and Jinja2's differ, the kind does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderFailure {
    /// An undefined variable, attribute or method used (Jinja2's `UndefinedError`).
    Undefined,
    /// An operation on values of the wrong type: `'a' + 1`, iterating `None`, `len(None)`,
    /// `tojson` of what JSON cannot hold (Python's `TypeError`).
    Type,
    /// A filter or test that does not exist (Jinja2's `TemplateAssertionError`).
    UnknownFilter,
    /// Something the sandbox forbids: mutating a list or dict, an underscore name on a
    /// namespace (Jinja2's `SecurityError`).
    Unsafe,
    /// A value of the right type but wrong: unpacking the wrong count, a missing format key
    /// (Python's `ValueError`, `KeyError`, `OverflowError`).
    Value,
    /// A division or modulo by zero (Python's `ZeroDivisionError`).
    ZeroDivision,
    /// Anything else.
    Other,
}

fn available_list(keys: &[String]) -> String {
    if keys.is_empty() {
        " (the file has no chat template)".to_string()
    } else {
        format!(" (the file has: {})", keys.join(", "))
    }
}
