//! The backdoor shape: an `if` whose test matches a message's content against a literal (`'x' in
//! m.content`, `m['content'] == 'x'`, `m.content.startswith('x')`) and whose branch emits fixed
//! prose. Branches that only compute (the `</think>` splitting of reasoning templates) or emit
//! markup are not the shape.
#![forbid(unsafe_code)]

use minijinja::machinery::ast::{self, BinOpKind, CompareOpKind, Expr, Stmt};

/// Fewest words the fixed text needs to read as an instruction rather than a marker.
const MIN_WORDS: usize = 4;

/// The fixed text (its first 60 characters) the branch of `c` emits when `c` has the shape.
pub(super) fn fixed_text(c: &ast::IfCond<'_>) -> Option<String> {
    if !matches_literal(&c.expr) {
        return None;
    }
    let mut text = String::new();
    emitted(&c.true_body, &mut text);
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
/// `if`s and `with`s.
fn emitted(body: &[Stmt<'_>], out: &mut String) {
    for s in body {
        match s {
            Stmt::EmitRaw(r) => out.push_str(r.raw),
            Stmt::EmitExpr(e) => {
                if let Expr::Const(c) = &e.expr {
                    if let Some(s) = c.value.as_str() {
                        out.push_str(s);
                    }
                }
            }
            Stmt::IfCond(c) => {
                emitted(&c.true_body, out);
                emitted(&c.false_body, out);
            }
            Stmt::WithBlock(w) => emitted(&w.body, out),
            _ => {}
        }
    }
}
