//! The backdoor shape: an `if` whose test matches a message's content against a literal (`'x' in
//! m.content`, `m['content'] == 'x'`, `m.content.startswith('x')`) and whose branch emits fixed
//! prose. Branches that only compute (the `</think>` splitting of reasoning templates) or emit
//! markup are not the shape.
#![forbid(unsafe_code)]

use minijinja::machinery::ast::{self, BinOpKind, CompareOpKind, Expr, Stmt};

/// Fewest words the fixed text needs to read as an instruction rather than a marker.
const MIN_WORDS: usize = 4;

/// Statements of a branch read for its fixed text, and the text kept: the prose a backdoor emits
/// comes first, and nested branches must not make the check quadratic.
const MAX_STATEMENTS: usize = 64;
const MAX_TEXT: usize = 1024;

/// The fixed text (its first 60 characters) the branch of `c` emits when `c` has the shape.
pub(super) fn fixed_text(c: &ast::IfCond<'_>) -> Option<String> {
    if !matches_literal(&c.expr) {
        return None;
    }
    let mut text = String::new();
    let mut budget = MAX_STATEMENTS;
    emitted(&c.true_body, &mut text, &mut budget);
    let t = text.trim();
    (t.split_whitespace().count() >= MIN_WORDS && !t.starts_with('<'))
        .then(|| t.chars().take(60).collect())
}

/// Whether the test compares a message's content with a literal (under `and`, `or`).
fn matches_literal(e: &Expr<'_>) -> bool {
    match e {
        Expr::BinOp(b) => match b.op {
            BinOpKind::ScAnd | BinOpKind::ScOr => {
                matches_literal(&b.left) || matches_literal(&b.right)
            }
            BinOpKind::In | BinOpKind::Eq => literal_vs_content(&b.left, &b.right),
            _ => false,
        },
        Expr::Compare(c) => c.ops.first().is_some_and(|op| {
            matches!(op.op, CompareOpKind::In | CompareOpKind::Eq)
                && literal_vs_content(&c.expr, &op.expr)
        }),
        Expr::Call(call) => match &call.expr {
            Expr::GetAttr(g) => {
                matches!(
                    g.name,
                    "startswith" | "endswith" | "find" | "count" | "index"
                ) && mentions_content(&g.expr)
                    && call
                        .args
                        .iter()
                        .any(|a| matches!(a, ast::CallArg::Pos(x) if is_literal(x)))
            }
            _ => false,
        },
        _ => false,
    }
}

fn literal_vs_content(a: &Expr<'_>, b: &Expr<'_>) -> bool {
    (is_literal(a) && mentions_content(b)) || (is_literal(b) && mentions_content(a))
}

fn is_literal(e: &Expr<'_>) -> bool {
    matches!(e, Expr::Const(c) if c.value.as_str().is_some_and(|s| !s.is_empty()))
}

/// Whether `e` reads a message's content: `.content`, `['content']`, or a variable so named,
/// through filters, calls and further lookups.
fn mentions_content(e: &Expr<'_>) -> bool {
    match e {
        Expr::Var(v) => v.id.contains("content"),
        Expr::GetAttr(g) => g.name.contains("content") || mentions_content(&g.expr),
        Expr::GetItem(g) => {
            matches!(&g.subscript_expr, Expr::Const(c) if c.value.as_str().is_some_and(|s| s.contains("content")))
                || mentions_content(&g.expr)
        }
        Expr::Filter(f) => f.expr.as_ref().is_some_and(|x| mentions_content(x)),
        Expr::Call(c) => mentions_content(&c.expr),
        _ => false,
    }
}

/// The constant text a branch emits: its raw text and string constants output, through nested
/// `if`s and `with`s, within `budget` statements and [`MAX_TEXT`] bytes.
fn emitted(body: &[Stmt<'_>], out: &mut String, budget: &mut usize) {
    for s in body {
        if *budget == 0 || out.len() >= MAX_TEXT {
            return;
        }
        *budget -= 1;
        match s {
            Stmt::EmitRaw(r) => push(out, r.raw),
            Stmt::EmitExpr(e) => {
                if let Expr::Const(c) = &e.expr {
                    if let Some(s) = c.value.as_str() {
                        push(out, s);
                    }
                }
            }
            Stmt::IfCond(c) => {
                emitted(&c.true_body, out, budget);
                emitted(&c.false_body, out, budget);
            }
            Stmt::WithBlock(w) => emitted(&w.body, out, budget),
            _ => {}
        }
    }
}

/// `s` appended to `out` up to [`MAX_TEXT`] bytes (cut at a character boundary).
fn push(out: &mut String, s: &str) {
    let room = MAX_TEXT.saturating_sub(out.len());
    let mut end = s.len().min(room);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.push_str(&s[..end]);
}
