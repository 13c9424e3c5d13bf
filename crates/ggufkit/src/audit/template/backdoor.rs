//! The backdoor rule as a data-flow analysis over the syntax tree: which values come from the
//! conversation (`messages` and everything derived from it through attributes, items, filters,
//! methods, `set`, `with`, loops, namespace attributes and macro arguments), which truths follow
//! from matching such a value against a literal (a *trigger*: `'x' in m.content`,
//! `m.name == 'x'`, `c|lower|trim == 'x'`, `c[:5] == 'x'`, `c.startswith('x')`, a flag set in a
//! branch on one), and where a branch taken on a trigger puts fixed prose into the prompt
//! (emitted anywhere, assigned over a message's content, through a macro).
//!
//! What is layout, not a trigger: a role or a content part's `type` compared with the names
//! chat formats use (`user`, `tool`, `text`…), a field's presence (`'tool_calls' in m`, `is
//! defined`), lengths and numbers, an empty or blank literal, `add_generation_prompt` and the
//! caller's other flags. Branches on a trigger that only compute (`</think>` splitting) or emit
//! markup (`<tool_call>`) put no prose in.
//!
//! The facts are flow-insensitive (one per name), gathered by whole passes over the tree until
//! none changes (a value flipped late in a loop and read early, a macro's arguments from the
//! calls after it), at most [`MAX_PASSES`]; then one pass reports. Each pass is linear in the
//! tree. The first pass follows data only; what a name is assigned outside any trigger's branch
//! (its constants, whether it can be true or false there) is rebuilt by each pass and read from
//! the one before, since it shrinks as triggers are found.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

use minijinja::machinery::ast::{self, BinOpKind, CallArg, CompareOpKind, Expr, Stmt, UnaryOpKind};

use super::fixed_text::{self, Known};
use super::flow::{
    case, element_kind, field, field_kind, gated, matched, negate, order, text_of, Flow, CONTENT,
    DATA, FREE_FALSE, FREE_TRUE, GATED, LAYOUT_NAMES, MAX_LITS, MAX_LIT_LEN, NEG, OBJ, POS,
    PROSE_TABLE, STRUCT, TRIGGER,
};
use super::walk::Hit;

/// The variables a template is given that hold what the conversation supplies: the messages,
/// and the tools and documents passed with them (transformers' `tools=`, `documents=`).
const CONVERSATION: &[&str] = &["messages", "tools", "documents"];

/// Passes that gather facts before the reporting pass; real templates settle in three or four.
const MAX_PASSES: usize = 8;

/// A name's fact: its scope (a macro's name, `""` for the template), the name, the namespace
/// attribute.
type Key<'s> = (&'s str, &'s str, Option<&'s str>);

/// Every backdoor of the template whose syntax tree is `root`.
pub(super) fn find(root: &Stmt<'_>) -> Vec<Hit> {
    let mut a = Analysis::default();
    for pass in 1..=MAX_PASSES {
        a.pass = pass;
        a.changed = false;
        a.stmt(root);
        let moved = a.free_next != a.free;
        a.free = std::mem::take(&mut a.free_next);
        if pass > 1 && !a.changed && !moved {
            break;
        }
    }
    a.pass = MAX_PASSES + 1;
    a.report = true;
    a.stmt(root);
    a.hits
}

#[derive(Default)]
struct Analysis<'s> {
    /// What each name may hold: conversation data, triggers (only grows from pass to pass).
    facts: HashMap<Key<'s>, Flow>,
    /// What each name is assigned outside any trigger's branch: its constants and
    /// [`FREE_TRUE`] / [`FREE_FALSE`], as the last whole pass found them. This shrinks as
    /// triggers are found, so it is rebuilt by each pass (`free_next`) and read from the last.
    free: HashMap<Key<'s>, Flow>,
    free_next: HashMap<Key<'s>, Flow>,
    /// The pass (from 1): the first follows data only, with no branch taken as a trigger's, so
    /// that every assignment counts as free; the later ones read its `free`.
    pass: usize,
    /// Names assigned inside each macro (its arguments too): local to it.
    locals: HashSet<(&'s str, &'s str)>,
    /// Names the template assigns at its top level.
    bound: HashSet<&'s str>,
    /// Each macro's argument names.
    macro_args: HashMap<&'s str, Vec<&'s str>>,
    known: Known<'s>,
    /// The macro whose body is being walked (`""` for none).
    scope: &'s str,
    /// Whether being here implies a match (`POS`) or a non-match (`NEG`) of a trigger.
    control: u16,
    control_why: Option<String>,
    /// Inside a branch already reported (its nested branches are not reported again).
    in_report: bool,
    changed: bool,
    report: bool,
    hits: Vec<Hit>,
}

fn offset(span: minijinja::machinery::Span) -> usize {
    span.start_offset as usize
}

impl<'s> Analysis<'s> {
    fn stmts(&mut self, body: &[Stmt<'s>]) {
        for s in body {
            self.stmt(s);
        }
    }

    /// `body` walked where being implies `control` (added to the current control).
    fn guarded(&mut self, body: &[Stmt<'s>], control: u16, why: &Option<String>) {
        let saved = (self.control, self.control_why.clone());
        if self.pass > 1 {
            self.control |= control;
        }
        if self.control_why.is_none() {
            self.control_why.clone_from(why);
        }
        self.stmts(body);
        (self.control, self.control_why) = saved;
    }

    fn stmt(&mut self, s: &Stmt<'s>) {
        match s {
            Stmt::Template(t) => self.stmts(&t.children),
            Stmt::EmitExpr(e) => {
                self.expr(&e.expr);
            }
            Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => {}
            Stmt::ForLoop(f) => {
                let iter = self.expr(&f.iter);
                let item = Flow::data(element_kind(iter.bits) | iter.triggers());
                self.assign(&f.target, &item);
                // `for m in messages if 'x' in m.content`: the body runs on a match
                let filter = match &f.filter_expr {
                    Some(x) => self.expr(x),
                    None => Flow::default(),
                };
                self.branches(&filter, &f.body, &[], offset(f.span()));
                self.stmts(&f.else_body);
            }
            Stmt::IfCond(c) => self.if_cond(c),
            Stmt::WithBlock(w) => {
                for (target, e) in &w.assignments {
                    let v = self.expr(e);
                    self.assign(target, &v);
                }
                self.stmts(&w.body);
            }
            Stmt::Set(s) => self.set(&s.target, &s.expr),
            Stmt::SetBlock(s) => {
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                let mut captured = Flow::default();
                for st in &s.body {
                    if let Stmt::EmitExpr(e) = st {
                        let v = self.expr(&e.expr).opaque();
                        captured.join(&v);
                    } else {
                        self.stmt(st);
                    }
                }
                self.assign(&s.target, &captured);
            }
            Stmt::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.stmts(&a.body);
            }
            Stmt::FilterBlock(f) => {
                self.expr(&f.filter);
                self.stmts(&f.body);
            }
            Stmt::Block(b) => self.stmts(&b.body),
            Stmt::Import(i) => {
                self.expr(&i.expr);
            }
            Stmt::FromImport(i) => {
                self.expr(&i.expr);
            }
            Stmt::Extends(e) => {
                self.expr(&e.name);
            }
            Stmt::Include(i) => {
                self.expr(&i.name);
            }
            Stmt::Macro(m) => self.macro_decl(m),
            Stmt::CallBlock(c) => {
                self.call(&c.call);
                self.macro_decl(&c.macro_decl);
            }
            Stmt::Do(d) => {
                self.call(&d.call);
            }
        }
    }

    fn if_cond(&mut self, c: &ast::Spanned<ast::IfCond<'s>>) {
        let cond = self.expr(&c.expr);
        self.branches(&cond, &c.true_body, &c.false_body, offset(c.span()));
    }

    /// The two branches of a test whose value is `cond` (the body of a loop whose filter it is,
    /// with nothing for the other), walked under what the test implies; reported at `at` when a
    /// trigger's branch puts prose in.
    fn branches(&mut self, cond: &Flow, then: &[Stmt<'s>], other: &[Stmt<'s>], at: usize) {
        let t = cond.bits & TRIGGER;
        if t != 0 && self.report && !self.in_report {
            let mut text = String::new();
            if t & POS != 0 {
                text.push_str(&fixed_text::of_body(then, &self.known));
            }
            if t & NEG != 0 {
                text.push(' ');
                text.push_str(&fixed_text::of_body(other, &self.known));
            }
            if let Some(p) = fixed_text::prose(&text) {
                self.hit(cond, &p, at);
                self.in_report = true;
                self.guarded(then, t, &cond.why);
                self.guarded(other, negate(t), &cond.why);
                self.in_report = false;
                return;
            }
        }
        self.guarded(then, t, &cond.why);
        self.guarded(other, negate(t), &cond.why);
    }

    fn hit(&mut self, cond: &Flow, text: &str, at: usize) {
        let on = cond
            .why
            .as_deref()
            .or(self.control_why.as_deref())
            .map_or_else(String::new, |w| format!(" {w:?}"));
        self.hits.push(Hit {
            rule: "template.backdoor",
            message: format!(
                "a branch taken when the conversation matches the literal{on} puts fixed text into the prompt: {text:?}"
            ),
            at,
        });
    }

    fn macro_decl(&mut self, m: &ast::Macro<'s>) {
        let outer = std::mem::replace(&mut self.scope, m.name);
        let mut names = Vec::new();
        for a in &m.args {
            if let Expr::Var(v) = a {
                names.push(v.id);
                self.locals.insert((m.name, v.id));
            }
        }
        self.macro_args.insert(m.name, names);
        for d in &m.defaults {
            self.expr(d);
        }
        self.stmts(&m.body);
        self.scope = outer;
        if !self.known.macros.contains_key(m.name) {
            let text = fixed_text::of_body(&m.body, &self.known);
            self.known.macros.insert(m.name, text);
        }
    }

    /// The scope a name resolves in from the current one.
    fn scope_of(&self, name: &'s str) -> &'s str {
        if !self.scope.is_empty() && self.locals.contains(&(self.scope, name)) {
            self.scope
        } else {
            ""
        }
    }

    fn lookup(&self, name: &'s str, attr: Option<&'s str>) -> Flow {
        let scope = self.scope_of(name);
        let key = (scope, name, attr);
        let mut f = self.facts.get(&key).cloned().unwrap_or_default();
        let free = if self.pass == 1 {
            &self.free_next
        } else {
            &self.free
        };
        if let Some(fr) = free.get(&key) {
            f.lits.clone_from(&fr.lits);
            f.bits |= fr.bits;
        }
        // the conversation's data: its messages, and the tools and documents the caller passes
        // with them (a branch on a tool's name or a document's text is one on what the
        // conversation says)
        if attr.is_none()
            && CONVERSATION.contains(&name)
            && scope.is_empty()
            && !self.bound.contains(name)
        {
            f.bits |= OBJ;
        }
        if f.bits & FREE_TRUE != 0 {
            f.bits &= !POS;
        }
        if f.bits & FREE_FALSE != 0 {
            f.bits &= !NEG;
        }
        f.bits &= !(FREE_TRUE | FREE_FALSE);
        f
    }

    /// `name` (`.attr`) in the current scope now may hold `v` too (and what the control adds).
    ///
    /// In a branch taken on a trigger the name becomes [`GATED`] and its truth follows the
    /// trigger (`true` assigned where a match holds: true implies a match); its constants there
    /// are not counted as values it has without one. Outside, a constant's truth (or any other
    /// value's) is recorded as [`FREE_TRUE`] / [`FREE_FALSE`], which a read weighs against that.
    fn store(&mut self, name: &'s str, attr: Option<&'s str>, v: &Flow, constant: Option<bool>) {
        let mut v = v.clone();
        if self.control != 0 {
            v.bits |= GATED
                | match constant {
                    Some(true) => self.control,
                    Some(false) => negate(self.control),
                    None => TRIGGER,
                };
            v.lits.clear();
            if v.why.is_none() {
                v.why.clone_from(&self.control_why);
            }
        }
        let free = (self.control == 0).then(|| {
            let bits = if v.bits & TRIGGER != 0 {
                0
            } else {
                match constant {
                    Some(true) => FREE_TRUE,
                    Some(false) => FREE_FALSE,
                    None => FREE_TRUE | FREE_FALSE,
                }
            };
            Flow {
                bits,
                lits: std::mem::take(&mut v.lits),
                why: None,
            }
        });
        let scope = if attr.is_some() {
            self.scope_of(name)
        } else if self.scope.is_empty() {
            self.bound.insert(name);
            ""
        } else {
            self.locals.insert((self.scope, name));
            self.scope
        };
        if let Some(free) = free {
            if attr.is_none() && scope.is_empty() && v.bits & DATA == 0 {
                if let Some(text) = free.lits.first().filter(|t| fixed_text::prose(t).is_some()) {
                    self.known.vars.entry(name).or_insert_with(|| text.clone());
                }
            }
            self.free_next
                .entry((scope, name, attr))
                .or_default()
                .join(&free);
        }
        if self.facts.entry((scope, name, attr)).or_default().join(&v) {
            self.changed = true;
        }
    }

    fn set(&mut self, target: &Expr<'s>, e: &Expr<'s>) {
        // `set ns = namespace(a=…)`: each attribute gets its initial value
        if let (Expr::Var(t), Expr::Call(c)) = (target, e) {
            if matches!(&c.expr, Expr::Var(v) if v.id == "namespace") {
                for a in &c.args {
                    if let CallArg::Kwarg(k, x) = a {
                        let v = self.expr(x);
                        self.store(t.id, Some(k), &v, truth(x));
                    } else if let CallArg::Pos(x) | CallArg::PosSplat(x) | CallArg::KwargSplat(x) =
                        a
                    {
                        self.expr(x);
                    }
                }
                self.store(t.id, None, &Flow::default(), None);
                return;
            }
        }
        let v = self.expr(e);
        let constant = truth(e);
        match target {
            Expr::Var(t) => self.store(t.id, None, &v, constant),
            _ => self.assign_with(target, &v, constant),
        }
    }

    fn assign(&mut self, target: &Expr<'s>, v: &Flow) {
        self.assign_with(target, v, None);
    }

    fn assign_with(&mut self, target: &Expr<'s>, v: &Flow, constant: Option<bool>) {
        match target {
            Expr::Var(t) => self.store(t.id, None, v, constant),
            Expr::GetAttr(g) => match &g.expr {
                Expr::Var(ns) => self.store(ns.id, Some(g.name), v, constant),
                other => {
                    self.expr(other);
                }
            },
            Expr::Tuple(t) => {
                let each = Flow::data(v.bits);
                for item in &t.items {
                    self.assign(item, &each);
                }
            }
            Expr::List(l) => {
                let each = Flow::data(v.bits);
                for item in &l.items {
                    self.assign(item, &each);
                }
            }
            other => {
                self.expr(other);
            }
        }
    }

    fn expr(&mut self, e: &Expr<'s>) -> Flow {
        match e {
            Expr::Var(v) => self.lookup(v.id, None),
            Expr::Const(c) => match c.value.as_str() {
                Some(s) => Flow::lit(s),
                None => Flow::default(),
            },
            Expr::Slice(s) => {
                let base = self.expr(&s.expr);
                for x in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(x);
                }
                // a slice of the messages is messages; of a role or text, text
                if base.bits & OBJ != 0 {
                    base.opaque()
                } else {
                    text_of(base).opaque()
                }
            }
            Expr::UnaryOp(u) => {
                let v = self.expr(&u.expr);
                match u.op {
                    UnaryOpKind::Not => Flow {
                        bits: negate(v.triggers()),
                        lits: Vec::new(),
                        why: v.why,
                    },
                    UnaryOpKind::Neg => v.opaque(),
                }
            }
            Expr::BinOp(b) => {
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                match b.op {
                    BinOpKind::Eq => self.compare(&l, &r, POS),
                    BinOpKind::Ne => self.compare(&l, &r, NEG),
                    BinOpKind::In => self.contains(&l, &r),
                    BinOpKind::ScAnd | BinOpKind::ScOr => l.union(&r),
                    BinOpKind::Concat | BinOpKind::Add => {
                        let mut out = Flow::data((l.bits | r.bits) & !STRUCT);
                        if (l.bits | r.bits) & STRUCT != 0 {
                            out.bits |= CONTENT;
                        }
                        out.why = l.why.clone().or(r.why.clone());
                        if out.bits & DATA == 0 {
                            for a in &l.lits {
                                for c in &r.lits {
                                    if out.lits.len() < MAX_LITS && a.len() + c.len() <= MAX_LIT_LEN
                                    {
                                        out.lits.push(format!("{a}{c}"));
                                    }
                                }
                            }
                        }
                        out
                    }
                    _ => order(&l, &r),
                }
            }
            Expr::Compare(c) => {
                let mut left = self.expr(&c.expr);
                let mut out = Flow::default();
                for op in &c.ops {
                    let right = self.expr(&op.expr);
                    let r = match op.op {
                        CompareOpKind::Eq => self.compare(&left, &right, POS),
                        CompareOpKind::Ne => self.compare(&left, &right, NEG),
                        CompareOpKind::In => self.contains(&left, &right),
                        CompareOpKind::NotIn => {
                            let f = self.contains(&left, &right);
                            Flow {
                                bits: negate(f.bits),
                                ..f
                            }
                        }
                        _ => order(&left, &right),
                    };
                    out.join(&r);
                    left = right;
                }
                out
            }
            Expr::IfExpr(i) => {
                let test = self.expr(&i.test_expr);
                let t = self.expr(&i.true_expr);
                let f = match &i.false_expr {
                    Some(x) => self.expr(x),
                    None => Flow::default(),
                };
                let trig = test.bits & TRIGGER;
                if trig != 0 && self.report && !self.in_report {
                    let mut text = String::new();
                    if trig & POS != 0 {
                        fixed_text::of_expr(&i.true_expr, &self.known, &mut text);
                    }
                    if trig & NEG != 0 {
                        if let Some(x) = &i.false_expr {
                            text.push(' ');
                            fixed_text::of_expr(x, &self.known, &mut text);
                        }
                    }
                    if let Some(p) = fixed_text::prose(&text) {
                        self.hit(&test, &p, offset(e.span()));
                    }
                }
                let mut out = t.union(&f);
                if trig != 0 {
                    out.bits |= TRIGGER;
                    if out.why.is_none() {
                        out.why = test.why;
                    }
                }
                out
            }
            Expr::Filter(f) => self.filter(f),
            Expr::Test(t) => self.test(t),
            Expr::GetAttr(g) => {
                if let Expr::Var(v) = &g.expr {
                    let base = self.lookup(v.id, None);
                    let attr = self.lookup(v.id, Some(g.name));
                    return field(&base, g.name).union(&attr);
                }
                let base = self.expr(&g.expr);
                field(&base, g.name)
            }
            Expr::GetItem(g) => self.get_item(g),
            Expr::Call(c) => self.call(c),
            Expr::List(l) => self.items(&l.items),
            Expr::Tuple(t) => self.items(&t.items),
            Expr::Map(m) => self.map(m),
        }
    }

    // Kept out of `expr` (never inlined) so that its frame, which nested expressions stack, stays
    // small.
    #[inline(never)]
    fn get_item(&mut self, g: &ast::Spanned<ast::GetItem<'s>>) -> Flow {
        let sub = self.expr(&g.subscript_expr);
        let key = match &g.subscript_expr {
            Expr::Const(c) => c.value.as_str(),
            _ => None,
        };
        let base = self.expr(&g.expr);
        self.table(&base, &sub, g.span());
        let mut out = match key {
            Some(k) => field(&base, k),
            None => Flow::data(base.bits & !PROSE_TABLE),
        };
        out.bits |= sub.triggers();
        out
    }

    #[inline(never)]
    fn map(&mut self, m: &ast::Spanned<ast::Map<'s>>) -> Flow {
        let mut out = Flow::default();
        for (k, v) in m.keys.iter().zip(&m.values) {
            self.expr(k);
            let mut text = String::new();
            fixed_text::of_expr(v, &self.known, &mut text);
            if fixed_text::prose(&text).is_some() {
                out.bits |= PROSE_TABLE;
            }
            let v = self.expr(v);
            out.bits |= v.bits & !PROSE_TABLE;
        }
        if out.bits & DATA != 0 {
            out.bits |= OBJ;
        }
        out
    }

    /// A list or tuple: what its items hold, their constants (for `x in ['a', 'b']`).
    fn items(&mut self, items: &[Expr<'s>]) -> Flow {
        let mut out = Flow::default();
        for x in items {
            let v = self.expr(x);
            out.join(&v);
        }
        if out.bits & DATA != 0 {
            out.lits.clear();
        }
        out
    }

    /// `a == b` (`polarity` `POS`) or `a != b` (`NEG`).
    fn compare(&mut self, a: &Flow, b: &Flow, polarity: u16) -> Flow {
        let mut out = if a.literals().is_empty() && b.literals().is_empty() {
            order(a, b)
        } else {
            Flow::default()
        };
        for (data, lit) in [(a, b), (b, a)] {
            if let Some(why) = matched(data, lit).or_else(|| gated(data, lit)) {
                out.bits |= polarity;
                out.why.get_or_insert(why);
            }
        }
        out
    }

    /// `needle in hay`.
    fn contains(&mut self, needle: &Flow, hay: &Flow) -> Flow {
        let mut out = order(needle, hay);
        // a literal in the conversation's text (a container's key is a field's presence)
        let hay_text = Flow {
            bits: hay.bits & !OBJ,
            ..hay.clone()
        };
        let found = matched(&hay_text, needle)
            .or_else(|| matched(needle, hay))
            .or_else(|| gated(needle, hay));
        if let Some(why) = found {
            out.bits |= POS;
            out.why.get_or_insert(why);
        }
        out
    }

    fn test(&mut self, t: &ast::Spanned<ast::Test<'s>>) -> Flow {
        let v = self.expr(&t.expr);
        let args = self.args(&t.args);
        let mut out = Flow {
            bits: v.triggers(),
            lits: Vec::new(),
            why: v.why.clone(),
        };
        let arg = args.first().cloned().unwrap_or_default();
        let polarity = match t.name {
            "eq" | "equalto" | "==" | "sameas" | "startingwith" | "endingwith" | "containing" => {
                POS
            }
            "ne" | "!=" => NEG,
            "in" => {
                return out.union(&self.contains(&v, &arg));
            }
            _ => return out,
        };
        out.join(&self.compare(&v, &arg, polarity));
        out
    }

    /// The arguments' flows (keyword ones after the positional ones).
    fn args(&mut self, args: &[CallArg<'s>]) -> Vec<Flow> {
        args.iter()
            .map(|a| match a {
                CallArg::Pos(e) | CallArg::Kwarg(_, e) => self.expr(e),
                CallArg::PosSplat(e) | CallArg::KwargSplat(e) => self.expr(e).opaque(),
            })
            .collect()
    }

    fn filter(&mut self, f: &ast::Spanned<ast::Filter<'s>>) -> Flow {
        let base = match &f.expr {
            Some(x) => self.expr(x),
            None => Flow::default(),
        };
        let args = self.args(&f.args);
        let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
        let kwarg = |name: &str| {
            f.args.iter().find_map(|a| match a {
                CallArg::Kwarg(k, Expr::Const(c)) if *k == name => c.value.as_str(),
                _ => None,
            })
        };
        let all_triggers = args.iter().fold(base.triggers(), |b, a| b | a.triggers());
        let mut out = match f.name {
            "length" | "count" | "wordcount" | "int" | "float" | "abs" | "round" | "bool" => {
                Flow::default()
            }
            "lower" | "upper" | "trim" | "string" | "title" | "capitalize" | "striptags" | "e"
            | "escape" | "safe" => Flow {
                lits: base.lits.iter().map(|s| case(f.name, s)).collect(),
                ..base.clone()
            },
            "replace" => {
                self.substitution(&base, &arg(1), f.span());
                let mut out = text_of(base.clone()).opaque();
                out.bits |= arg(1).bits & DATA;
                out
            }
            "first" | "last" | "random" => Flow::data(element_kind(base.bits)),
            "map" => match kwarg("attribute") {
                Some(a) if base.bits & DATA != 0 => Flow::data(field_kind(a)),
                _ => Flow::data(element_kind(base.bits)),
            },
            "select" | "reject" | "selectattr" | "rejectattr" => {
                let mut out = Flow::data(base.bits & DATA);
                self.select(f, &base, &args, &mut out);
                out
            }
            "default" | "d" => base.clone().union(&arg(0)),
            _ => {
                let mut bits = base.bits & DATA;
                for a in &args {
                    bits |= a.bits & DATA;
                }
                let bits = if bits & OBJ != 0 && bits & !OBJ == 0 && base.bits & OBJ != 0 {
                    OBJ
                } else if bits != 0 {
                    CONTENT
                } else {
                    0
                };
                Flow::data(bits)
            }
        };
        out.bits |= all_triggers;
        if out.why.is_none() {
            out.why = base.why.or_else(|| args.iter().find_map(|a| a.why.clone()));
        }
        out
    }

    /// `select`/`reject`(`test`, `value`) and `selectattr`/`rejectattr`(`attr`, `test`,
    /// `value`) over the conversation: a test against a literal is a trigger.
    fn select(
        &mut self,
        f: &ast::Spanned<ast::Filter<'s>>,
        base: &Flow,
        args: &[Flow],
        out: &mut Flow,
    ) {
        if base.bits & DATA == 0 {
            return;
        }
        let by_attr = f.name.ends_with("attr");
        let (attr, rest) = if by_attr {
            (
                args.first().and_then(|a| a.lits.first().cloned()),
                args.get(1..).unwrap_or(&[]),
            )
        } else {
            (None, args)
        };
        let [test, value, ..] = rest else { return };
        let Some(test) = test.lits.first() else {
            return;
        };
        let kind = match &attr {
            Some(a) => field_kind(a),
            None => CONTENT,
        };
        let polarity = match test.as_str() {
            "eq" | "equalto" | "==" | "sameas" | "startingwith" | "endingwith" | "containing"
            | "in" => POS,
            "ne" | "!=" => NEG,
            _ => return,
        };
        if let Some(why) = matched(&Flow::data(kind), value) {
            // the selection's truth (non-empty) follows a match or a non-match
            let _ = polarity;
            out.bits |= TRIGGER;
            out.why.get_or_insert(why);
        }
    }

    /// A table of fixed prose looked up by the conversation's text (`replies[m.content]`,
    /// `replies.get(m.content, m.content)`): reported; whether it is one.
    fn table(&mut self, table: &Flow, key: &Flow, span: minijinja::machinery::Span) -> bool {
        if table.bits & PROSE_TABLE == 0 || key.bits & (CONTENT | STRUCT) == 0 {
            return false;
        }
        if self.report && !self.in_report {
            self.hits.push(Hit {
                rule: "template.backdoor",
                message: "a table of fixed prose looked up by what the conversation says puts that text into the prompt".into(),
                at: offset(span),
            });
        }
        true
    }

    /// A conversation value's text replaced by fixed prose: `content|replace('x', 'prose')`.
    fn substitution(&mut self, base: &Flow, with: &Flow, span: minijinja::machinery::Span) {
        if !self.report || self.in_report || base.bits & (CONTENT | STRUCT) == 0 {
            return;
        }
        let Some(text) = with.literals().into_iter().find_map(fixed_text::prose) else {
            return;
        };
        let cond = Flow {
            why: None,
            ..Flow::default()
        };
        self.hit(&cond, &text, offset(span));
    }

    fn call(&mut self, c: &ast::Spanned<ast::Call<'s>>) -> Flow {
        match &c.expr {
            Expr::Var(v) => {
                let args = self.args(&c.args);
                let mut out = Flow::default();
                for a in &args {
                    out.bits |= a.bits;
                }
                if let Some(params) = self.macro_args.get(v.id).cloned() {
                    self.bind_args(v.id, &params, &c.args, &args);
                }
                match v.id {
                    "range" | "namespace" => Flow::data(out.triggers()),
                    _ => {
                        if out.bits & DATA != 0 {
                            out.bits = (out.bits & TRIGGER) | CONTENT;
                        }
                        out
                    }
                }
            }
            Expr::GetAttr(g) => {
                let recv = self.expr(&g.expr);
                let args = self.args(&c.args);
                self.method(c, g, &recv, &args)
            }
            other => {
                let callee = self.expr(other);
                let args = self.args(&c.args);
                let mut bits = callee.bits;
                for a in &args {
                    bits |= a.bits;
                }
                Flow::data(bits)
            }
        }
    }

    /// A macro's arguments take the values of a call's.
    fn bind_args(&mut self, name: &'s str, params: &[&'s str], raw: &[CallArg<'s>], args: &[Flow]) {
        let outer = std::mem::replace(&mut self.scope, name);
        let mut pos = 0;
        for (a, v) in raw.iter().zip(args) {
            let param = match a {
                CallArg::Pos(_) => {
                    pos += 1;
                    params.get(pos - 1).copied()
                }
                CallArg::Kwarg(k, _) => params.iter().copied().find(|p| p == k),
                _ => None,
            };
            if let Some(p) = param {
                let mut v = v.clone();
                // the control of the call site is not the macro's
                let saved = std::mem::take(&mut self.control);
                v.why = v.why.or_else(|| self.control_why.clone());
                self.store(p, None, &v, None);
                self.control = saved;
            }
        }
        self.scope = outer;
    }

    fn method(
        &mut self,
        c: &ast::Spanned<ast::Call<'s>>,
        g: &ast::Spanned<ast::GetAttr<'s>>,
        recv: &Flow,
        args: &[Flow],
    ) -> Flow {
        let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
        let all_triggers = args.iter().fold(recv.triggers(), |b, a| b | a.triggers());
        let mut out = match g.name {
            "startswith" | "endswith" | "find" | "rfind" | "index" | "rindex" | "count" => {
                let mut out = Flow::default();
                let a = arg(0);
                let role_only = recv.bits & STRUCT != 0 && recv.bits & (CONTENT | OBJ) == 0;
                let matched = if role_only {
                    // a prefix or suffix of a layout name is layout too
                    a.literals()
                        .into_iter()
                        .find(|l| !LAYOUT_NAMES.iter().any(|n| n.contains(l)))
                        .map(str::to_string)
                } else {
                    matched(recv, &a)
                };
                if let Some(why) = matched {
                    out.bits |= if g.name.ends_with("with") {
                        POS
                    } else {
                        TRIGGER
                    };
                    out.why = Some(why);
                }
                out
            }
            "replace" => {
                self.substitution(recv, &arg(1), c.span());
                let mut out = text_of(recv.clone()).opaque();
                out.bits |= arg(1).bits & DATA;
                out
            }
            "lower" | "upper" | "strip" | "lstrip" | "rstrip" | "title" | "capitalize" => Flow {
                lits: recv.lits.iter().map(|s| case(g.name, s)).collect(),
                ..recv.clone()
            },
            "get" if self.table(recv, &arg(0), c.span()) => Flow::data(CONTENT),
            "get" => match args.first().and_then(|a| a.lits.first()) {
                Some(k) => field(recv, k),
                None => Flow::data(recv.bits & DATA),
            },
            "items" | "keys" | "values" => Flow::data(if recv.bits & DATA != 0 {
                OBJ | CONTENT
            } else {
                0
            }),
            "append" | "extend" | "insert" | "update" | "add" => {
                let mut v = Flow::default();
                for a in args {
                    v.bits |= a.bits;
                }
                if let Expr::Var(t) = &g.expr {
                    self.store(t.id, None, &Flow::data(v.bits), None);
                } else if let Expr::GetAttr(ns) = &g.expr {
                    if let Expr::Var(t) = &ns.expr {
                        self.store(t.id, Some(ns.name), &Flow::data(v.bits), None);
                    }
                }
                Flow::default()
            }
            "split" | "rsplit" | "splitlines" | "join" | "format" => {
                let mut bits = recv.bits & DATA;
                for a in args {
                    bits |= a.bits & DATA;
                }
                Flow::data(if bits != 0 { CONTENT } else { 0 })
            }
            _ => Flow::data(recv.bits & DATA),
        };
        out.bits |= all_triggers;
        if out.why.is_none() {
            out.why = recv.why.clone();
        }
        out
    }
}

/// The truth of an expression that is a constant (`true`, `'text'`, `none`, `0`…).
fn truth(e: &Expr<'_>) -> Option<bool> {
    match e {
        Expr::Const(c) => Some(c.value.is_true()),
        Expr::List(l) if l.items.is_empty() => Some(false),
        Expr::Tuple(t) if t.items.is_empty() => Some(false),
        Expr::Map(m) if m.keys.is_empty() => Some(false),
        _ => None,
    }
}
