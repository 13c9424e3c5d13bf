//! The template's `+`, `%` and `~` handed to Python's semantics. minijinja's operators cannot be
//! overridden, and three of Jinja2's differ where real templates go: `+` of a markupsafe
//! `Markup` (from `|safe`, `|e`) escapes the other operand as HTML, `'%s' % x` is Python's
//! printf formatting (minijinja has no string `%`), and `~` writes each side with Python's
//! `str` (`1e+20`, `None`). Before compiling, each such operation `L op R` of the source becomes
//! a call `_gguf_add(L, R)` (`_gguf_mod`, `_gguf_concat`) of a function of
//! [`operators`](super::operators): the operands keep their text and evaluation order, the
//! lines keep their numbers (nothing spans a line break that did not), so errors still name the
//! template's line.
//!
//! Three other places get a call for the same reason, Jinja2 failing where minijinja goes on:
//! `<`, `<=`, `>`, `>=` between two operands (`_gguf_lt` ...: Python refuses to order a str and
//! an int, or None), a `for` loop's iterable (`_gguf_iter`: None is not iterable in Python)
//! and the value of `{% set ns.name = v %}` (`_gguf_ns_set`: transformers' namespace refuses
//! names starting with `_`, and Python's keeps the order names were set in).
#![forbid(unsafe_code)]

use minijinja::machinery::ast::{BinOpKind, CallArg, Expr, Macro, Stmt};
use minijinja::machinery::{parse, tokenize, Token};
use minijinja::syntax::SyntaxConfig;

/// The function a rewritten operator calls, by operator.
fn function(op: &BinOpKind) -> Option<&'static str> {
    match op {
        BinOpKind::Add => Some("_gguf_add"),
        BinOpKind::Rem => Some("_gguf_mod"),
        BinOpKind::Concat => Some("_gguf_concat"),
        BinOpKind::Lt => Some("_gguf_lt"),
        BinOpKind::Lte => Some("_gguf_le"),
        BinOpKind::Gt => Some("_gguf_gt"),
        BinOpKind::Gte => Some("_gguf_ge"),
        _ => None,
    }
}

/// One rewrite: the byte range of an expression, which becomes `open` + the expression (its
/// operator, when `op` gives its range, replaced by `,`) + `close`.
struct Site {
    start: usize,
    end: usize,
    op: Option<(usize, usize)>,
    open: String,
    close: String,
}

impl Site {
    /// The expression that starts at `start` and ends where `e` ends, passed through the
    /// function `name`, with `extra` arguments after it.
    fn wrap(start: usize, e: &Expr<'_>, name: &str, extra: &str) -> Self {
        Site {
            start,
            end: e.span().end_offset as usize,
            op: None,
            open: format!("{name}("),
            close: format!("{extra})"),
        }
    }
}

/// The source's tokens: the start and end of each, and whether it is a closing parenthesis.
struct Toks<'s> {
    source: &'s str,
    spans: Vec<(usize, usize, bool)>,
}

/// The start of the token after the first token `word` that starts at or after `from`: where
/// a `for` loop's iterable starts after `in`, a `set`'s value after `=` (the parser's spans of
/// calls and attributes do not always start at their first token).
fn start_after(from: usize, word: &str, t: &Toks<'_>) -> Option<usize> {
    let first = t.spans.partition_point(|s| s.0 < from);
    let at = t.spans[first..]
        .iter()
        .position(|s| t.source.get(s.0..s.1) == Some(word))?;
    t.spans.get(first + at + 1).map(|s| s.0)
}

/// The start of the token after the one that starts at `at` (a comparison's span starts at
/// the token before it).
fn next_token(at: usize, t: &Toks<'_>) -> Option<usize> {
    let i = t.spans.partition_point(|s| s.0 < at);
    (t.spans.get(i)?.0 == at).then(|| t.spans.get(i + 1).map(|s| s.0))?
}

/// `source` with its operators rewritten, or `source` itself when it has none to rewrite or
/// does not parse (minijinja then reports the syntax error on the original text).
pub(crate) fn rewrite(source: &str, syntax: &SyntaxConfig) -> String {
    let Ok(tree) = parse(source, "chat_template", syntax.clone()) else {
        return source.to_string();
    };
    // the start and end of every token, to find each operator after its left operand
    let mut tokens = Toks {
        source,
        spans: Vec::new(),
    };
    for t in tokenize(source, false, syntax.clone()) {
        let Ok((tok, span)) = t else {
            return source.to_string();
        };
        let close = matches!(tok, Token::ParenClose);
        tokens
            .spans
            .push((span.start_offset as usize, span.end_offset as usize, close));
    }
    let mut sites = Vec::new();
    stmt(&tree, &tokens, &mut sites);
    if sites.is_empty() {
        return source.to_string();
    }
    splice(source, &sites)
}

/// One insertion or replacement: its offset, its class (closings, operators, openings), its
/// order within the class, its text and how many bytes it replaces.
type Edit<'a> = (usize, u8, (usize, usize), &'a str, usize);

/// The text with every site's edits: its opening at its start, `,` for its operator, its
/// closing at its end. At one offset, closings come before openings, inner closings before
/// outer ones and outer openings before inner ones.
fn splice(source: &str, sites: &[Site]) -> String {
    // (offset, class, order within the class, text, bytes replaced); sites of the same span
    // nest in the order they were found (the first outermost)
    let mut edits: Vec<Edit<'_>> = Vec::new();
    for (i, s) in sites.iter().enumerate() {
        let len = s.end - s.start;
        edits.push((s.start, 2, (usize::MAX - len, i), &s.open, 0));
        if let Some((from, to)) = s.op {
            edits.push((from, 1, (0, 0), ",", to - from));
        }
        edits.push((s.end, 0, (len, usize::MAX - i), &s.close, 0));
    }
    edits.sort_by_key(|e| (e.0, e.1, e.2));
    let mut out = String::with_capacity(source.len() + edits.len() * 12);
    let mut at = 0;
    for (offset, _, _, text, replaced) in edits {
        if offset < at {
            // overlapping edits cannot come from a well-formed tree; keep the source unchanged
            return source.to_string();
        }
        out.push_str(&source[at..offset]);
        out.push_str(text);
        at = offset + replaced;
    }
    out.push_str(&source[at..]);
    out
}

fn stmts(body: &[Stmt<'_>], tokens: &Toks<'_>, sites: &mut Vec<Site>) {
    for s in body {
        stmt(s, tokens, sites);
    }
}

fn stmt(s: &Stmt<'_>, t: &Toks<'_>, sites: &mut Vec<Site>) {
    match s {
        Stmt::Template(x) => stmts(&x.children, t, sites),
        Stmt::EmitExpr(x) => expr(&x.expr, t, sites),
        Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => {}
        Stmt::ForLoop(x) => {
            expr(&x.target, t, sites);
            if let Some(start) = start_after(x.target.span().end_offset as usize, "in", t) {
                sites.push(Site::wrap(start, &x.iter, "_gguf_iter", ""));
            }
            expr(&x.iter, t, sites);
            if let Some(f) = &x.filter_expr {
                expr(f, t, sites);
            }
            stmts(&x.body, t, sites);
            stmts(&x.else_body, t, sites);
        }
        Stmt::IfCond(x) => {
            expr(&x.expr, t, sites);
            stmts(&x.true_body, t, sites);
            stmts(&x.false_body, t, sites);
        }
        Stmt::WithBlock(x) => {
            for (target, e) in &x.assignments {
                expr(target, t, sites);
                expr(e, t, sites);
            }
            stmts(&x.body, t, sites);
        }
        Stmt::Set(x) => {
            expr(&x.target, t, sites);
            if let Expr::GetAttr(a) = &x.target {
                // the name checked, and logged by the namespace (which keeps their order)
                let start = start_after(x.target.span().end_offset as usize, "=", t);
                if let (Expr::Var(ns), Some(start)) = (&a.expr, start) {
                    let args = format!(", '{}', {}", a.name, ns.id);
                    sites.push(Site::wrap(start, &x.expr, "_gguf_ns_set", &args));
                }
            }
            expr(&x.expr, t, sites);
        }
        Stmt::SetBlock(x) => {
            if let Some(f) = &x.filter {
                expr(f, t, sites);
            }
            stmts(&x.body, t, sites);
        }
        Stmt::AutoEscape(x) => {
            expr(&x.enabled, t, sites);
            stmts(&x.body, t, sites);
        }
        Stmt::FilterBlock(x) => {
            expr(&x.filter, t, sites);
            stmts(&x.body, t, sites);
        }
        Stmt::Block(x) => stmts(&x.body, t, sites),
        Stmt::Import(x) => expr(&x.expr, t, sites),
        Stmt::FromImport(x) => expr(&x.expr, t, sites),
        Stmt::Extends(x) => expr(&x.name, t, sites),
        Stmt::Include(x) => expr(&x.name, t, sites),
        Stmt::Macro(m) => macro_decl(m, t, sites),
        Stmt::CallBlock(x) => {
            call_args(&x.call.expr, &x.call.args, t, sites);
            macro_decl(&x.macro_decl, t, sites);
        }
        Stmt::Do(x) => call_args(&x.call.expr, &x.call.args, t, sites),
    }
}

fn macro_decl(m: &Macro<'_>, t: &Toks<'_>, sites: &mut Vec<Site>) {
    for d in &m.defaults {
        expr(d, t, sites);
    }
    stmts(&m.body, t, sites);
}

fn call_args(callee: &Expr<'_>, args: &[CallArg<'_>], t: &Toks<'_>, sites: &mut Vec<Site>) {
    expr(callee, t, sites);
    args_of(args, t, sites);
}

fn args_of(args: &[CallArg<'_>], t: &Toks<'_>, sites: &mut Vec<Site>) {
    for a in args {
        match a {
            CallArg::Pos(e)
            | CallArg::PosSplat(e)
            | CallArg::Kwarg(_, e)
            | CallArg::KwargSplat(e) => expr(e, t, sites),
        }
    }
}

/// The operator after the left operand that ends at `left_end`: the first token from there
/// that is not a closing parenthesis.
fn operator_after(left_end: usize, tokens: &Toks<'_>) -> Option<(usize, usize)> {
    let from = tokens.spans.partition_point(|t| t.0 < left_end);
    tokens.spans[from..]
        .iter()
        .find(|t| !t.2)
        .map(|&(start, end, _)| (start, end))
}

fn expr(e: &Expr<'_>, t: &Toks<'_>, sites: &mut Vec<Site>) {
    match e {
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(x) => {
            expr(&x.expr, t, sites);
            for b in [&x.start, &x.stop, &x.step].into_iter().flatten() {
                expr(b, t, sites);
            }
        }
        Expr::UnaryOp(x) => expr(&x.expr, t, sites),
        Expr::BinOp(x) => {
            if let Some(name) = function(&x.op) {
                let span = e.span();
                let start = match x.op {
                    BinOpKind::Lt | BinOpKind::Lte | BinOpKind::Gt | BinOpKind::Gte => {
                        next_token(span.start_offset as usize, t)
                    }
                    _ => Some(span.start_offset as usize),
                };
                let op = operator_after(x.left.span().end_offset as usize, t);
                if let (Some(start), Some(op)) = (start, op) {
                    sites.push(Site {
                        start,
                        end: span.end_offset as usize,
                        op: Some(op),
                        open: format!("{name}("),
                        close: ")".to_string(),
                    });
                }
            }
            expr(&x.left, t, sites);
            expr(&x.right, t, sites);
        }
        Expr::Compare(x) => {
            expr(&x.expr, t, sites);
            for op in &x.ops {
                expr(&op.expr, t, sites);
            }
        }
        Expr::IfExpr(x) => {
            expr(&x.test_expr, t, sites);
            expr(&x.true_expr, t, sites);
            if let Some(f) = &x.false_expr {
                expr(f, t, sites);
            }
        }
        Expr::Filter(x) => {
            if let Some(inner) = &x.expr {
                expr(inner, t, sites);
            }
            args_of(&x.args, t, sites);
        }
        Expr::Test(x) => {
            expr(&x.expr, t, sites);
            args_of(&x.args, t, sites);
        }
        Expr::GetAttr(x) => expr(&x.expr, t, sites),
        Expr::GetItem(x) => {
            expr(&x.expr, t, sites);
            expr(&x.subscript_expr, t, sites);
        }
        Expr::Call(x) => call_args(&x.expr, &x.args, t, sites),
        Expr::List(x) => x.items.iter().for_each(|i| expr(i, t, sites)),
        Expr::Tuple(x) => x.items.iter().for_each(|i| expr(i, t, sites)),
        Expr::Map(x) => {
            for (k, v) in x.keys.iter().zip(&x.values) {
                expr(k, t, sites);
                expr(v, t, sites);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> String {
        rewrite(s, &SyntaxConfig::default())
    }

    #[test]
    fn operators_become_calls_with_their_operands_text() {
        assert_eq!(rw("{{ a + b }}"), "{{ _gguf_add(a , b) }}");
        assert_eq!(
            rw("{{ 'x'|safe + t['n'] + \"'\"|safe }}"),
            "{{ _gguf_add(_gguf_add('x'|safe , t['n']) , \"'\"|safe) }}"
        );
        assert_eq!(
            rw("{{ (a + b) ~ c }}"),
            "{{ _gguf_concat((_gguf_add(a , b)) , c) }}"
        );
        assert_eq!(
            rw("{{ a + b ~ c }}"),
            "{{ _gguf_add(a , _gguf_concat(b , c)) }}"
        );
        assert_eq!(
            rw("{% set x = '%s'%(y,) %}{{ f(a+ -b) }}"),
            "{% set x = _gguf_mod('%s',(y,)) %}{{ f(_gguf_add(a, -b)) }}"
        );
        assert_eq!(rw("{{ a - b * c }}{{ x }}"), "{{ a - b * c }}{{ x }}");
        assert_eq!(rw("{{ a <= b }}"), "{{ _gguf_le(a , b) }}");
        assert_eq!(rw("{{ 1 < a < 3 }}"), "{{ 1 < a < 3 }}");
        assert_eq!(rw("{% if %}"), "{% if %}");
    }

    #[test]
    fn loops_and_namespace_assignments_get_their_checks() {
        assert_eq!(
            rw("{% for x in m.items() %}{% endfor %}"),
            "{% for x in _gguf_iter(m.items()) %}{% endfor %}"
        );
        assert_eq!(
            rw("{% for x in (a + b)|list if x %}{% endfor %}"),
            "{% for x in _gguf_iter((_gguf_add(a , b))|list) if x %}{% endfor %}"
        );
        assert_eq!(
            rw("{% set ns._x = y + 1 %}{% set ns.z = 2 %}"),
            "{% set ns._x = _gguf_ns_set(_gguf_add(y , 1), '_x', ns) %}{% set ns.z = _gguf_ns_set(2, 'z', ns) %}"
        );
        assert_eq!(
            rw("{% set ns._x = f(a) %}"),
            "{% set ns._x = _gguf_ns_set(f(a), '_x', ns) %}"
        );
    }

    #[test]
    fn lines_keep_their_numbers() {
        let src = "{{ a +\n b }}\n{{ c\n ~ d }}";
        let out = rw(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert_eq!(out, "{{ _gguf_add(a ,\n b) }}\n{{ _gguf_concat(c\n , d) }}");
    }
}
