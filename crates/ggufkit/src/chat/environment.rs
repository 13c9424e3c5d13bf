//! The Jinja environment a chat template runs in, set as transformers sets Jinja2's
//! (`ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)` with loop controls,
//! no trailing newline kept, undefined values printing as nothing), printing values as Python
//! does, with Python's string, dict and list methods (minijinja-contrib's `pycompat`), and
//! bounded: every render has a fuel budget (instructions and bytes) and a recursion limit, so a
//! hostile template ends with an error instead of hanging or exhausting memory. minijinja has
//! no access to Python, files or the environment; nothing added here has either.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior};
use regex::Regex;

use super::functions::{self, Clock};
use super::methods;
use super::python;

/// The name the template has inside its environment.
pub(crate) const TEMPLATE_NAME: &str = "chat_template";

/// Work one render may do: about one unit per instruction and per 64 bytes created, so at
/// most ~256 MiB of data. Real templates over long conversations use a few hundred thousand.
pub const FUEL: u64 = 4_000_000;

/// How deep macros, loops and conditions may nest at run time (minijinja's default and its
/// safe maximum without growing the stack).
pub const RECURSION_LIMIT: usize = 500;

/// A fresh environment with the settings, functions and limits above.
pub(crate) fn environment(clock: Clock) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_syntax(syntax());
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_debug(false);
    env.set_formatter(|out, _state, value| {
        out.write_str(&python::str(value))
            .map_err(|_| minijinja::Error::from(minijinja::ErrorKind::WriteFailure))
    });
    env.set_unknown_method_callback(methods::call);
    functions::register(&mut env, clock);
    env
}

/// Jinja2's syntax with transformers' whitespace settings.
pub(crate) fn syntax() -> SyntaxConfig {
    SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(false)
        .build()
        .unwrap_or_default()
}

/// The source minijinja compiles: its string literals' escapes read as Python reads them
/// ([`escapes`](super::escapes)), its `+`, `%` and `~` made Python's
/// ([`rewrite`](super::rewrite)), and Hugging Face's `{% generation %}` ... `{% endgeneration %}`
/// (which mark the assistant's text for training masks and render their body unchanged)
/// become a block tag minijinja knows with the same whitespace control, `{% if true %}` ...
/// `{% endif %}`.
pub(crate) fn prepare(source: &str) -> String {
    let syntax = syntax();
    let source = super::escapes::python_escapes(&generation_tags(source), &syntax);
    super::rewrite::rewrite(&source, &syntax)
}

fn generation_tags(source: &str) -> String {
    static TAG: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(tag) = TAG
        .get_or_init(|| Regex::new(r"\{%([-+]?)\s*(end)?generation\s*([-+]?)%\}").ok())
        .as_ref()
    else {
        return source.to_string();
    };
    tag.replace_all(source, |c: &regex::Captures<'_>| {
        let open = c.get(1).map_or("", |m| m.as_str());
        let close = c.get(3).map_or("", |m| m.as_str());
        let body = if c.get(2).is_some() {
            "endif"
        } else {
            "if true"
        };
        format!("{{%{open} {body} {close}%}}")
    })
    .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_tags_become_if_blocks() {
        assert_eq!(
            generation_tags("a{%- generation %}b{% endgeneration -%}c{%generation%}"),
            "a{%- if true %}b{% endif -%}c{% if true %}"
        );
    }
}
