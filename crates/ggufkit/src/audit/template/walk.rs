//! The walk over a parsed template: every statement and expression once, in source order, with
//! the names the template binds and the values its `set`s and loops give them; at each node the
//! rules of Python internals (`template.dunder`), Jinja's globals (`template.escape-global`) and
//! exec-like names (`template.exec`), and at each `if` the backdoor shape.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};

use minijinja::machinery::ast::{self, CallArg, Expr, Spanned, Stmt};

use super::values::{self, map_n, strings, Val, Vals};

/// Globals of Jinja whose attributes lead to Python internals (through `__init__.__globals__`,
/// `_TemplateReference__context`, Flask's `config` and `request`).
const ESCAPE_GLOBALS: &[&str] = &[
    "cycler",
    "joiner",
    "namespace",
    "lipsum",
    "self",
    "range",
    "config",
    "request",
];

/// Names whose call runs code or reaches the interpreter.
const EXEC_CALLS: &[&str] = &[
    "popen",
    "eval",
    "exec",
    "system",
    "import_module",
    "getattr",
    "globals",
    "compile",
    "check_output",
    "__import__",
];

/// Modules whose mere dereference is the way to a shell.
const MODULES: &[&str] = &["os", "subprocess", "sys", "builtins"];

/// Attributes of Python's internals that need no underscores.
const INTERNALS: &[&str] = &[
    "mro",
    "func_globals",
    "f_globals",
    "f_builtins",
    "f_locals",
    "f_back",
    "gi_frame",
    "gi_code",
    "cr_frame",
    "ag_frame",
    "tb_frame",
    "co_code",
    "im_func",
];

/// Bytes of values the walk may compute over one template; past them every value is unknown, so
/// that a hostile template of millions of `a ~ a` costs a pass, not a copy per node.
const FUEL: usize = 16 << 20;

/// One rule broken: the rule id, the message and the byte offset inside the parsed source.
pub(super) struct Hit {
    pub rule: &'static str,
    pub message: String,
    pub at: usize,
}

/// A name that reaches Python's internals: anything behind two underscores, or one of
/// [`INTERNALS`].
fn is_internal(name: &str) -> bool {
    name.contains("__") || INTERNALS.contains(&name)
}

/// Every rule broken in the template whose syntax tree is `root`.
///
/// Recursion: statements nest at most as deep as minijinja's parser allows (its recursion
/// limit), expressions at most one level per operator of one tag, which `prepare` bounds.
pub(super) fn walk(root: &Stmt<'_>) -> Vec<Hit> {
    let mut w = Walker {
        bound: HashSet::new(),
        macros: HashSet::new(),
        values: HashMap::new(),
        hits: Vec::new(),
        child_dunder: false,
        accessed: Vals::new(),
        fuel: FUEL,
    };
    w.stmt(root);
    w.hits
}

struct Walker<'s> {
    /// Names the template binds (by `set`, `for`, `with`, macros, imports) so far: these are no
    /// longer Jinja's globals.
    bound: HashSet<&'s str>,
    /// The macros the template declares so far.
    macros: HashSet<&'s str>,
    /// The values known of bound names.
    values: HashMap<&'s str, Vals>,
    hits: Vec<Hit>,
    /// Whether an expression walked below the current one has a value naming a dunder (so that a
    /// name built in several steps is reported once, where it first appears).
    child_dunder: bool,
    /// The names the last `[]` or `|attr()` walked reached, for the call that may follow.
    accessed: Vals,
    /// What is left of [`FUEL`].
    fuel: usize,
}

fn offset(span: minijinja::machinery::Span) -> usize {
    span.start_offset as usize
}

impl<'s> Walker<'s> {
    fn hit(&mut self, rule: &'static str, message: String, at: usize) {
        self.hits.push(Hit { rule, message, at });
    }

    fn stmts(&mut self, body: &[Stmt<'s>]) {
        for s in body {
            self.stmt(s);
        }
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
                self.bind(&f.target, loop_items(&iter));
                if let Some(x) = &f.filter_expr {
                    self.expr(x);
                }
                self.stmts(&f.body);
                self.stmts(&f.else_body);
            }
            Stmt::IfCond(c) => {
                self.expr(&c.expr);
                self.stmts(&c.true_body);
                self.stmts(&c.false_body);
            }
            Stmt::WithBlock(w) => {
                for (target, e) in &w.assignments {
                    let v = self.expr(e);
                    self.bind(target, v);
                }
                self.stmts(&w.body);
            }
            Stmt::Set(s) => {
                let v = self.expr(&s.expr);
                self.bind(&s.target, v);
            }
            Stmt::SetBlock(s) => {
                self.bind(&s.target, Vals::new());
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                self.stmts(&s.body);
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
                self.bind(&i.name, Vals::new());
            }
            Stmt::FromImport(i) => {
                self.expr(&i.expr);
                for (name, alias) in &i.names {
                    self.bind(alias.as_ref().unwrap_or(name), Vals::new());
                }
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

    fn macro_decl(&mut self, m: &ast::Macro<'s>) {
        self.bound.insert(m.name);
        self.macros.insert(m.name);
        for a in &m.args {
            self.bind(a, Vals::new());
        }
        for d in &m.defaults {
            self.expr(d);
        }
        self.stmts(&m.body);
    }

    /// `target` (a name, a tuple of names, or `ns.attr`) now holds `vals`.
    fn bind(&mut self, target: &Expr<'s>, vals: Vals) {
        match target {
            Expr::Var(v) => {
                self.bound.insert(v.id);
                let known = self.values.entry(v.id).or_default();
                for x in vals {
                    if known.len() < 16 && !known.contains(&x) {
                        known.push(x);
                    }
                }
            }
            Expr::Tuple(t) => {
                for item in &t.items {
                    self.bind(item, Vals::new());
                }
            }
            Expr::List(l) => {
                for item in &l.items {
                    self.bind(item, Vals::new());
                }
            }
            other => {
                self.expr(other);
            }
        }
    }

    /// Walks `e`, checks it, and returns what it can be worth. A string naming a dunder is
    /// reported at the node that first builds it.
    fn expr(&mut self, e: &Expr<'s>) -> Vals {
        let before = std::mem::replace(&mut self.child_dunder, false);
        let mut vals = self.expr_inner(e);
        let cost: usize = vals.iter().map(Val::size).sum();
        match self.fuel.checked_sub(cost) {
            Some(left) => self.fuel = left,
            None => {
                self.fuel = 0;
                vals.clear();
            }
        }
        let own = vals.iter().any(Val::has_dunder);
        if own && !self.child_dunder {
            let s = strings(&vals)
                .find(|s| s.contains("__"))
                .unwrap_or_default();
            let message = match e {
                Expr::Const(_) => format!("a string naming `{s}`"),
                _ => format!("a name built as `{s}`"),
            };
            self.hit("template.dunder", message, offset(e.span()));
        }
        self.child_dunder = before || own;
        vals
    }

    fn expr_inner(&mut self, e: &Expr<'s>) -> Vals {
        match e {
            // A variable's, macro's or loop's own name, however many underscores it starts with
            // (`__render_tool`, `_x`), reaches nothing: Jinja looks names up in the template's
            // context, never in Python's. Only attribute and item access do.
            Expr::Var(v) => {
                if self.fuel == 0 {
                    return Vals::new();
                }
                self.values.get(v.id).cloned().unwrap_or_default()
            }
            Expr::Const(c) => values::constant(&c.value).into_iter().collect(),
            Expr::Slice(s) => {
                let base = self.expr(&s.expr);
                let bound = |w: &mut Self, x: &Option<Expr<'s>>| match x {
                    Some(x) => w.expr(x).into_iter().map(Some).collect::<Vec<_>>(),
                    None => vec![None],
                };
                let (a, b, c) = (
                    bound(self, &s.start),
                    bound(self, &s.stop),
                    bound(self, &s.step),
                );
                let mut out = Vals::new();
                for v in &base {
                    for x in &a {
                        for y in &b {
                            for z in &c {
                                if out.len() < 16 {
                                    out.extend(values::slice(
                                        v,
                                        x.as_ref(),
                                        y.as_ref(),
                                        z.as_ref(),
                                    ));
                                }
                            }
                        }
                    }
                }
                out
            }
            Expr::UnaryOp(u) => {
                let v = self.expr(&u.expr);
                match u.op {
                    ast::UnaryOpKind::Neg => v
                        .iter()
                        .filter_map(|x| match x {
                            Val::Int(i) => i.checked_neg().map(Val::Int),
                            _ => None,
                        })
                        .collect(),
                    ast::UnaryOpKind::Not => Vals::new(),
                }
            }
            Expr::BinOp(b) => {
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                let f: fn(&Val, &Val) -> Option<Val> = match b.op {
                    ast::BinOpKind::Concat => values::concat,
                    ast::BinOpKind::Add => values::add,
                    ast::BinOpKind::Mul => values::mul,
                    ast::BinOpKind::Rem => |f, a| values::percent(f, std::slice::from_ref(a)),
                    _ => return Vals::new(),
                };
                map_n(&[&l, &r], |c| f(&c[0], &c[1]))
            }
            Expr::Compare(c) => {
                self.expr(&c.expr);
                for op in &c.ops {
                    self.expr(&op.expr);
                }
                Vals::new()
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr);
                let mut v = self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    v.extend(self.expr(f));
                }
                v.truncate(16);
                v
            }
            Expr::Filter(f) => self.filter(f),
            Expr::Test(t) => {
                self.expr(&t.expr);
                self.args(&t.args);
                Vals::new()
            }
            Expr::GetAttr(g) => {
                self.get_attr(g);
                Vals::new()
            }
            Expr::GetItem(g) => self.get_item(g),
            Expr::Call(c) => self.call(c),
            Expr::List(l) => self.items(&l.items),
            Expr::Tuple(t) => self.items(&t.items),
            Expr::Map(m) => {
                for (k, v) in m.keys.iter().zip(&m.values) {
                    self.expr(k);
                    self.expr(v);
                }
                Vals::new()
            }
        }
    }

    /// A list or tuple literal: the list of its items' values when all are known.
    fn items(&mut self, items: &[Expr<'s>]) -> Vals {
        let vals: Vec<Vals> = items.iter().map(|x| self.expr(x)).collect();
        let refs: Vec<&Vals> = vals.iter().collect();
        map_n(&refs, |c| Some(Val::List(c.to_vec())))
    }

    /// The positional arguments' values and the keyword arguments' names and values; a keyword
    /// naming a dunder (`dict(__class__=1)`, a string built from a name) is reported, unless
    /// `to_macro` (a macro of the template called: its keywords are its argument names).
    fn args(&mut self, args: &[CallArg<'s>]) -> (Vec<Vals>, Vec<(&'s str, Vals)>) {
        self.args_of(args, false)
    }

    fn args_of(
        &mut self,
        args: &[CallArg<'s>],
        to_macro: bool,
    ) -> (Vec<Vals>, Vec<(&'s str, Vals)>) {
        let (mut pos, mut kw) = (Vec::new(), Vec::new());
        for a in args {
            match a {
                CallArg::Pos(e) => pos.push(self.expr(e)),
                CallArg::PosSplat(e) => {
                    self.expr(e);
                    pos.push(Vals::new());
                }
                CallArg::Kwarg(name, e) => {
                    if !to_macro && is_internal(name) {
                        self.hit(
                            "template.dunder",
                            format!("the keyword `{name}`"),
                            offset(e.span()).saturating_sub(name.len() + 1),
                        );
                    }
                    let v = self.expr(e);
                    kw.push((*name, v));
                }
                CallArg::KwargSplat(e) => {
                    self.expr(e);
                }
            }
        }
        (pos, kw)
    }

    /// A global of [`ESCAPE_GLOBALS`] or a module of [`MODULES`] dereferenced (by `.`, `[]` or
    /// a filter), unless the template bound the name itself.
    fn deref(&mut self, e: &Expr<'s>) {
        let Expr::Var(v) = e else { return };
        if self.bound.contains(v.id) {
            return;
        }
        if ESCAPE_GLOBALS.contains(&v.id) {
            self.hit(
                "template.escape-global",
                format!("the Jinja global `{}` dereferenced", v.id),
                offset(v.span()),
            );
        } else if MODULES.contains(&v.id) {
            self.hit(
                "template.exec",
                format!("use of the module `{}`", v.id),
                offset(v.span()),
            );
        }
    }

    /// Names reached by `[]` or `|attr()` (the values of the key): internals and modules
    /// (exec-like names count when called, see [`Walker::call`]). Strings with two underscores
    /// are reported where they are built.
    fn names(&mut self, names: &Vals, at: usize) {
        for s in strings(names) {
            if INTERNALS.contains(&s) {
                self.hit("template.dunder", format!("access to `{s}`"), at);
            } else if MODULES.contains(&s) {
                self.hit("template.exec", format!("access to `{s}`"), at);
            }
        }
        self.accessed = names.clone();
    }

    /// `x.name`: the name checked, and the values of `x` (for a method call).
    fn get_attr(&mut self, g: &Spanned<ast::GetAttr<'s>>) -> Vals {
        let recv = self.expr(&g.expr);
        self.deref(&g.expr);
        // The name is the last token of the node.
        let at = (g.span().end_offset as usize).saturating_sub(g.name.len());
        if is_internal(g.name) {
            self.hit("template.dunder", format!("access to `{}`", g.name), at);
        } else if MODULES.contains(&g.name) {
            self.hit("template.exec", format!("use of `{}`", g.name), at);
        }
        recv
    }

    fn get_item(&mut self, g: &Spanned<ast::GetItem<'s>>) -> Vals {
        let base = self.expr(&g.expr);
        self.deref(&g.expr);
        let sub = self.expr(&g.subscript_expr);
        self.names(&sub, offset(g.subscript_expr.span()));
        map_n(&[&base, &sub], |c| values::index(&c[0], &c[1]))
    }

    fn filter(&mut self, f: &Spanned<ast::Filter<'s>>) -> Vals {
        let base = match &f.expr {
            Some(x) => {
                let v = self.expr(x);
                self.deref(x);
                v
            }
            None => Vals::new(),
        };
        let (pos, _) = self.args(&f.args);
        let arg = |i: usize| pos.get(i).cloned().unwrap_or_default();
        match f.name {
            "attr" => {
                let names = arg(0);
                if names.is_empty() {
                    self.hit(
                        "template.dunder",
                        "`attr` with a name known only at run time (any attribute, dunders too)"
                            .into(),
                        offset(f.span()),
                    );
                }
                self.names(&names, offset(f.span()));
                Vals::new()
            }
            "format" => {
                let mut all = vec![&base];
                all.extend(pos.iter());
                map_n(&all, |c| values::percent(&c[0], &c[1..]))
            }
            "join" => {
                let sep = pos
                    .first()
                    .cloned()
                    .unwrap_or_else(|| vec![Val::Str(String::new())]);
                map_n(&[&base, &sep], |c| values::join(&c[0], &c[1]))
            }
            "replace" => map_n(&[&base, &arg(0), &arg(1)], |c| {
                values::replace(&c[0], &c[1], &c[2])
            }),
            name => base
                .iter()
                .filter_map(|v| values::transform(name, v))
                .collect(),
        }
    }

    fn call(&mut self, c: &Spanned<ast::Call<'s>>) -> Vals {
        let to_macro = matches!(&c.expr, Expr::Var(v) if self.macros.contains(v.id));
        let method = match &c.expr {
            Expr::Var(v) => {
                self.expr(&c.expr);
                if EXEC_CALLS.contains(&v.id) && !self.bound.contains(v.id) {
                    self.hit(
                        "template.exec",
                        format!("a call of `{}`", v.id),
                        offset(v.span()),
                    );
                }
                None
            }
            Expr::GetAttr(g) => {
                let recv = self.get_attr(g);
                if EXEC_CALLS.contains(&g.name) {
                    let at = (g.span().end_offset as usize).saturating_sub(g.name.len());
                    self.hit("template.exec", format!("a call of `{}`", g.name), at);
                }
                Some((recv, g.name))
            }
            other => {
                self.accessed.clear();
                self.expr(other);
                // `x['popen'](…)`, `(x|attr('popen'))(…)`: the name the callee reached
                if matches!(other, Expr::GetItem(_) | Expr::Filter(_)) {
                    let called: Vec<String> = strings(&self.accessed)
                        .filter(|s| EXEC_CALLS.contains(s))
                        .map(str::to_string)
                        .collect();
                    for s in called {
                        self.hit(
                            "template.exec",
                            format!("a call of `{s}`"),
                            offset(other.span()),
                        );
                    }
                }
                None
            }
        };
        let (pos, kw) = self.args_of(&c.args, to_macro);
        let Some((recv, name)) = method else {
            return Vals::new();
        };
        let arg = |i: usize| pos.get(i).cloned().unwrap_or_default();
        match name {
            "format" => {
                // Keyword arguments count when each has one known value.
                let kw: Vec<(&str, Val)> = kw
                    .iter()
                    .filter_map(|(k, v)| match v.as_slice() {
                        [one] => Some((*k, one.clone())),
                        _ => None,
                    })
                    .collect();
                let mut all = vec![&recv];
                all.extend(pos.iter());
                map_n(&all, |c| values::brace_format(&c[0], &c[1..], &kw))
            }
            "join" => map_n(&[&arg(0), &recv], |c| values::join(&c[0], &c[1])),
            "replace" => map_n(&[&recv, &arg(0), &arg(1)], |c| {
                values::replace(&c[0], &c[1], &c[2])
            }),
            name => recv
                .iter()
                .filter_map(|v| values::transform(name, v))
                .collect(),
        }
    }
}

/// The values a loop variable takes over `iter`'s values: a known list's items, a string's
/// characters.
fn loop_items(iter: &Vals) -> Vals {
    let mut out = Vals::new();
    for v in iter {
        let items = match v {
            Val::List(l) => l.clone(),
            Val::Str(s) => s.chars().map(|c| Val::Str(c.into())).collect(),
            Val::Int(_) => continue,
        };
        for x in items {
            if out.len() < 16 && !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}
