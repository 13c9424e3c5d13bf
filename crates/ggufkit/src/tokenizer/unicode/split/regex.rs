//! The regular expressions llama.cpp hands to std::regex / std::wregex (ECMAScript grammar, as
//! GNU libstdc++ runs it in the "C" locale), parsed and run here over code units: the bytes of
//! llama.cpp's collapsed text, or codepoints.
//!
//! libstdc++ matches ECMAScript expressions by depth-first backtracking: alternatives left to
//! right, the first that leads to an accept wins; greedy quantifiers try one more iteration
//! before leaving; a lookahead runs a sub-match from the current position; `\s`, `\d`, `\w` are
//! the "C" locale's classes (ASCII only, for bytes and for wide characters alike). The same
//! order of exploration is kept here, with an explicit stack (std::regex recurses per
//! codepoint and overflows its stack on long inputs) and two shortcuts that do not change the
//! result: a quantified single-unit class runs as one step with a counter, and a
//! `(?=[A])([B])` pair is the one-unit class A∩B.
#![forbid(unsafe_code)]

use super::class::Class;

/// Why an expression is not accepted (never for llama.cpp's own, which a test compiles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ParseError {
    /// Index of the code unit where parsing stopped.
    pub(super) at: usize,
    /// What was expected.
    pub(super) what: &'static str,
}

#[derive(Clone, Debug)]
enum Node {
    Empty,
    Unit(Class),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
    Look {
        node: Box<Node>,
        negate: bool,
    },
    Begin,
    End,
    WordBoundary {
        negate: bool,
    },
}

/// Whether the code units are bytes (`std::regex`) or wide characters (`std::wregex`): `.`
/// differs, and the universe of a negated class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Units {
    Bytes,
    Wide,
}

fn ascii_class(c: u8) -> Option<Class> {
    let r: Vec<(u32, u32)> = match c {
        b'd' | b'D' => vec![(0x30, 0x39)],
        b's' | b'S' => vec![(0x09, 0x0D), (0x20, 0x20)],
        b'w' | b'W' => vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
        _ => return None,
    };
    let class = Class::from_ranges(r);
    Some(if c.is_ascii_uppercase() {
        class.negate()
    } else {
        class
    })
}

/// `\w` of the "C" locale.
fn is_word(u: u32) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x5F | 0x61..=0x7A)
}

struct Parser<'a> {
    p: &'a [u32],
    i: usize,
    units: Units,
}

impl Parser<'_> {
    fn err<T>(&self, what: &'static str) -> Result<T, ParseError> {
        Err(ParseError { at: self.i, what })
    }
    fn peek(&self) -> Option<u32> {
        self.p.get(self.i).copied()
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c as u32) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self) -> Result<Node, ParseError> {
        let mut alts = vec![self.alternative()?];
        while self.eat('|') {
            alts.push(self.alternative()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alts)
        })
    }

    fn alternative(&mut self) -> Result<Node, ParseError> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' as u32 || c == ')' as u32 {
                break;
            }
            let atom = self.term()?;
            seq.push(atom);
        }
        Ok(match seq.len() {
            0 => Node::Empty,
            1 => seq.pop().unwrap_or(Node::Empty),
            _ => Node::Seq(seq),
        })
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().filter(|c| (0x30..=0x39).contains(c)) {
            n = n.checked_mul(10)?.checked_add(d - 0x30)?;
            self.i += 1;
        }
        (self.i > start).then_some(n)
    }

    fn term(&mut self) -> Result<Node, ParseError> {
        let c = self.peek().unwrap_or(0);
        let atom = match char::from_u32(c).unwrap_or('\0') {
            '^' => {
                self.i += 1;
                return Ok(Node::Begin);
            }
            '$' => {
                self.i += 1;
                return Ok(Node::End);
            }
            '(' => {
                self.i += 1;
                let look = if self.eat('?') {
                    if self.eat(':') {
                        None
                    } else if self.eat('=') {
                        Some(false)
                    } else if self.eat('!') {
                        Some(true)
                    } else {
                        return self.err("`:`, `=` or `!` after `(?`");
                    }
                } else {
                    None
                };
                let inner = self.disjunction()?;
                if !self.eat(')') {
                    return self.err("`)`");
                }
                if let Some(negate) = look {
                    return Ok(Node::Look {
                        node: Box::new(inner),
                        negate,
                    });
                }
                inner
            }
            '[' => {
                self.i += 1;
                Node::Unit(self.bracket()?)
            }
            '.' => {
                self.i += 1;
                let mut r = vec![(0x0A, 0x0A), (0x0D, 0x0D)];
                if self.units == Units::Wide {
                    r.push((0x2028, 0x2029));
                }
                Node::Unit(Class::from_ranges(r).negate())
            }
            '\\' => {
                self.i += 1;
                let Some(e) = self.peek() else {
                    return self.err("an escape after `\\`");
                };
                if e == 'b' as u32 || e == 'B' as u32 {
                    self.i += 1;
                    return Ok(Node::WordBoundary {
                        negate: e == 'B' as u32,
                    });
                }
                match self.escape(false)? {
                    Esc::Unit(u) => Node::Unit(Class::from_ranges(vec![(u, u)])),
                    Esc::Class(c) => Node::Unit(c),
                }
            }
            '*' | '+' | '?' | '{' => return self.err("something to repeat"),
            _ => {
                self.i += 1;
                Node::Unit(Class::from_ranges(vec![(c, c)]))
            }
        };
        self.quantifier(atom)
    }

    fn quantifier(&mut self, atom: Node) -> Result<Node, ParseError> {
        let (min, max) = match self.peek().and_then(char::from_u32) {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.i += 1;
                let Some(min) = self.number() else {
                    return self.err("a count after `{`");
                };
                let max = if self.eat(',') {
                    self.number()
                } else {
                    Some(min)
                };
                if self.peek() != Some('}' as u32) {
                    return self.err("`}`");
                }
                if max.is_some_and(|m| m < min) {
                    return self.err("a maximum count not below the minimum");
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.i += 1;
        if self.peek() == Some('?' as u32) {
            return self.err("a greedy quantifier (lazy ones are not used by llama.cpp)");
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// After a `\`: one unit or a class. In a bracket `\b` is a backspace.
    fn escape(&mut self, in_bracket: bool) -> Result<Esc, ParseError> {
        let Some(e) = self.peek() else {
            return self.err("an escape after `\\`");
        };
        self.i += 1;
        let ch = char::from_u32(e).unwrap_or('\0');
        let unit = match ch {
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
                return Ok(Esc::Class(
                    ascii_class(ch as u8).unwrap_or_else(|| Class::from_ranges(vec![])),
                ));
            }
            'b' if in_bracket => 0x08,
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            '0' => 0,
            'x' | 'u' => {
                let digits = if ch == 'x' { 2 } else { 4 };
                let mut v = 0u32;
                for _ in 0..digits {
                    let Some(d) = self
                        .peek()
                        .and_then(char::from_u32)
                        .and_then(|c| c.to_digit(16))
                    else {
                        return self.err("hexadecimal digits");
                    };
                    v = v * 16 + d;
                    self.i += 1;
                }
                v
            }
            'c' => {
                let Some(l) = self
                    .peek()
                    .filter(|c| char::from_u32(*c).is_some_and(|c| c.is_ascii_alphabetic()))
                else {
                    return self.err("a letter after `\\c`");
                };
                self.i += 1;
                l % 32
            }
            '1'..='9' => return self.err("no back-references"),
            _ => e,
        };
        Ok(Esc::Unit(unit))
    }

    /// After `[`: the class up to and including `]`.
    fn bracket(&mut self) -> Result<Class, ParseError> {
        let negate = self.eat('^');
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut classes: Vec<Class> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return self.err("`]`");
            };
            if c == ']' as u32 {
                self.i += 1;
                break;
            }
            let first = self.bracket_atom()?;
            let Esc::Unit(lo) = first else {
                if let Esc::Class(cl) = first {
                    classes.push(cl);
                }
                continue;
            };
            let is_range = self.peek() == Some('-' as u32)
                && self.p.get(self.i + 1).is_some_and(|&n| n != ']' as u32);
            if !is_range {
                ranges.push((lo, lo));
                continue;
            }
            self.i += 1;
            match self.bracket_atom()? {
                Esc::Unit(hi) if hi >= lo => ranges.push((lo, hi)),
                _ => return self.err("a valid range in a bracket"),
            }
        }
        let mut class = Class::from_ranges(ranges);
        for c in &classes {
            class = class.union(c);
        }
        if negate {
            class = class.negate();
        }
        if self.units == Units::Bytes {
            class = class.intersect(&Class::from_ranges(vec![(0, 0xFF)]));
        }
        Ok(class)
    }

    fn bracket_atom(&mut self) -> Result<Esc, ParseError> {
        let c = self.peek().unwrap_or(0);
        self.i += 1;
        if c == '\\' as u32 {
            return self.escape(true);
        }
        Ok(Esc::Unit(c))
    }
}

enum Esc {
    Unit(u32),
    Class(Class),
}

/// The two shortcuts (see the module's doc): `(?=[A])[B]` → `[A∩B]`.
fn simplify(node: Node) -> Node {
    match node {
        Node::Seq(items) => {
            let items: Vec<Node> = items.into_iter().map(simplify).collect();
            if let [Node::Look {
                node,
                negate: false,
            }, Node::Unit(b)] = items.as_slice()
            {
                if let Node::Unit(a) = node.as_ref() {
                    return Node::Unit(a.intersect(b));
                }
            }
            Node::Seq(items)
        }
        Node::Alt(items) => Node::Alt(items.into_iter().map(simplify).collect()),
        Node::Repeat { node, min, max } => Node::Repeat {
            node: Box::new(simplify(*node)),
            min,
            max,
        },
        Node::Look { node, negate } => Node::Look {
            node: Box::new(simplify(*node)),
            negate,
        },
        other => other,
    }
}

/// Whether `node` can match the empty string; and the set of units a non-empty match starts with.
fn first(node: &Node) -> (Class, bool) {
    let none = || Class::from_ranges(vec![]);
    match node {
        Node::Empty | Node::Begin | Node::End | Node::WordBoundary { .. } | Node::Look { .. } => {
            (none(), true)
        }
        Node::Unit(c) => (c.clone(), false),
        Node::Seq(items) => {
            let mut set = none();
            for n in items {
                let (c, nullable) = first(n);
                set = set.union(&c);
                if !nullable {
                    return (set, false);
                }
            }
            (set, true)
        }
        Node::Alt(items) => {
            let mut set = none();
            let mut any = false;
            for n in items {
                let (c, nullable) = first(n);
                set = set.union(&c);
                any |= nullable;
            }
            (set, any)
        }
        Node::Repeat { node, min, .. } => {
            let (c, nullable) = first(node);
            (c, nullable || *min == 0)
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Inst {
    Unit(u32),
    /// A greedy run of `class`, `min..=max` units; `next`: the class the instruction after it
    /// requires of its first unit ([`NO_CLASS`] when it requires none), which lets
    /// backtracking skip the positions where that unit fails at once.
    Run {
        class: u32,
        min: u32,
        max: u32,
        next: u32,
    },
    Split(u32, u32),
    Jmp(u32),
    Look {
        next: u32,
        negate: bool,
    },
    Begin,
    End,
    WordBoundary {
        negate: bool,
    },
    Match,
}

/// `Inst::Run::next` when the following instruction requires no particular unit.
const NO_CLASS: u32 = u32::MAX;

/// A compiled expression.
#[derive(Debug)]
pub(super) struct Regex {
    insts: Vec<Inst>,
    classes: Vec<Class>,
    /// The units a match can start with, when no match is empty.
    start: Option<Class>,
}

struct Compiler {
    insts: Vec<Inst>,
    classes: Vec<Class>,
}

impl Compiler {
    fn class(&mut self, c: &Class) -> u32 {
        if let Some(i) = self.classes.iter().position(|k| k == c) {
            return i as u32;
        }
        self.classes.push(c.clone());
        (self.classes.len() - 1) as u32
    }
    fn pc(&self) -> u32 {
        self.insts.len() as u32
    }
    fn emit(&mut self, node: &Node) -> Result<(), ParseError> {
        match node {
            Node::Empty => {}
            Node::Unit(c) => {
                let c = self.class(c);
                self.insts.push(Inst::Unit(c));
            }
            Node::Seq(items) => {
                for n in items {
                    self.emit(n)?;
                }
            }
            Node::Alt(items) => {
                let mut to_end = Vec::new();
                for (k, n) in items.iter().enumerate() {
                    if k + 1 < items.len() {
                        let split = self.insts.len();
                        self.insts.push(Inst::Split(0, 0));
                        self.emit(n)?;
                        to_end.push(self.insts.len());
                        self.insts.push(Inst::Jmp(0));
                        self.insts[split] = Inst::Split(split as u32 + 1, self.pc());
                    } else {
                        self.emit(n)?;
                    }
                }
                let end = self.pc();
                for j in to_end {
                    self.insts[j] = Inst::Jmp(end);
                }
            }
            Node::Repeat { node, min, max } => {
                if let Node::Unit(c) = node.as_ref() {
                    let class = self.class(c);
                    self.insts.push(Inst::Run {
                        class,
                        min: *min,
                        max: max.unwrap_or(u32::MAX),
                        next: NO_CLASS,
                    });
                    return Ok(());
                }
                if first(node).1 && *max != Some(*min) {
                    // ECMAScript's rule for empty iterations is not needed by llama.cpp's
                    // expressions; refuse rather than loop
                    return Err(ParseError {
                        at: 0,
                        what: "a repeated group that cannot match empty",
                    });
                }
                for _ in 0..*min {
                    self.emit(node)?;
                }
                match max {
                    None => {
                        let top = self.insts.len();
                        self.insts.push(Inst::Split(0, 0));
                        self.emit(node)?;
                        self.insts.push(Inst::Jmp(top as u32));
                        self.insts[top] = Inst::Split(top as u32 + 1, self.pc());
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            splits.push(self.insts.len());
                            self.insts.push(Inst::Split(0, 0));
                            self.emit(node)?;
                        }
                        let end = self.pc();
                        for s in splits {
                            self.insts[s] = Inst::Split(s as u32 + 1, end);
                        }
                    }
                }
            }
            Node::Look { node, negate } => {
                let at = self.insts.len();
                self.insts.push(Inst::Look {
                    next: 0,
                    negate: *negate,
                });
                self.emit(node)?;
                self.insts.push(Inst::Match);
                self.insts[at] = Inst::Look {
                    next: self.pc(),
                    negate: *negate,
                };
            }
            Node::Begin => self.insts.push(Inst::Begin),
            Node::End => self.insts.push(Inst::End),
            Node::WordBoundary { negate } => {
                self.insts.push(Inst::WordBoundary { negate: *negate })
            }
        }
        Ok(())
    }
}

/// One step to return to on failure.
#[derive(Clone, Copy)]
pub(super) enum Frame {
    /// Resume at `pc` at position `pos`.
    Alt { pc: u32, pos: usize },
    /// A counted run that can give back units down to `low`; it stands at `cur`.
    Run { pc: u32, low: usize, cur: usize },
}

/// libstdc++'s flags of one `regex_search` call.
#[derive(Clone, Copy)]
pub(super) struct How {
    /// `match_not_null`: an empty match does not count.
    not_null: bool,
    /// `match_continuous`: only a match starting at the first position.
    continuous: bool,
    /// `match_prev_avail`: the unit before the first position may be looked at.
    prev_avail: bool,
}

impl How {
    /// The iterator's first search.
    const FIRST: How = How {
        not_null: false,
        continuous: false,
        prev_avail: false,
    };
    /// Its searches after a match.
    const NEXT: How = How {
        not_null: false,
        continuous: false,
        prev_avail: true,
    };
}

/// The state of one search: the units, the end of the span, and libstdc++'s flags.
struct Ctx<'a> {
    units: &'a [u32],
    end: usize,
    not_null: bool,
}

impl Regex {
    /// Parses and compiles `pattern` (code units: bytes or codepoints).
    pub(super) fn new(pattern: &[u32], units: Units) -> Result<Regex, ParseError> {
        let mut p = Parser {
            p: pattern,
            i: 0,
            units,
        };
        let node = p.disjunction()?;
        if p.i != pattern.len() {
            return p.err("the end of the expression (an unmatched `)`)");
        }
        let node = simplify(node);
        let (start_set, nullable) = first(&node);
        let mut c = Compiler {
            insts: Vec::new(),
            classes: Vec::new(),
        };
        c.emit(&node)?;
        c.insts.push(Inst::Match);
        for i in 0..c.insts.len() - 1 {
            let follows = match c.insts[i + 1] {
                Inst::Unit(k) => k,
                Inst::Run { class, min, .. } if min > 0 => class,
                _ => NO_CLASS,
            };
            if let Inst::Run { next, .. } = &mut c.insts[i] {
                *next = follows;
            }
        }
        Ok(Regex {
            insts: c.insts,
            classes: c.classes,
            start: (!nullable).then_some(start_set),
        })
    }

    /// Runs the program from `pc` at `begin`; the end of the first accepted path, as libstdc++'s
    /// DFS executor finds it. `prev_avail`: whether the unit before `begin` may be looked at.
    fn run(
        &self,
        cx: &Ctx<'_>,
        pc: u32,
        begin: usize,
        prev_avail: bool,
        scratch: &mut Scratch,
    ) -> Option<usize> {
        let base = scratch.frames.len();
        let (mut pc, mut pos) = (pc, begin);
        let units = cx.units;
        let result = 'outer: loop {
            scratch.steps += 1;
            let ok = match self.insts[pc as usize] {
                Inst::Unit(c) => {
                    if pos < cx.end && self.classes[c as usize].contains(units[pos]) {
                        pos += 1;
                        pc += 1;
                        true
                    } else {
                        false
                    }
                }
                Inst::Run {
                    class, min, max, ..
                } => {
                    let k = self.run_end(cx, pc, class, max, pos, scratch);
                    let low = pos + min as usize;
                    if k < low {
                        false
                    } else {
                        if k > low {
                            scratch.frames.push(Frame::Run {
                                pc: pc + 1,
                                low,
                                cur: k,
                            });
                        }
                        pos = k;
                        pc += 1;
                        true
                    }
                }
                Inst::Split(a, b) => {
                    scratch.frames.push(Frame::Alt { pc: b, pos });
                    pc = a;
                    true
                }
                Inst::Jmp(a) => {
                    pc = a;
                    true
                }
                Inst::Look { next, negate } => {
                    let found = self.run(cx, pc + 1, pos, prev_avail, scratch).is_some();
                    if found != negate {
                        pc = next;
                        true
                    } else {
                        false
                    }
                }
                Inst::Begin => {
                    pc += 1;
                    pos == begin && !prev_avail
                }
                Inst::End => {
                    pc += 1;
                    pos == cx.end
                }
                Inst::WordBoundary { negate } => {
                    let left = (pos != begin || prev_avail) && pos > 0 && is_word(units[pos - 1]);
                    let right = pos < cx.end && is_word(units[pos]);
                    pc += 1;
                    (left != right) != negate
                }
                Inst::Match => {
                    if !(cx.not_null && pos == begin) {
                        break 'outer Some(pos);
                    }
                    false
                }
            };
            if ok {
                continue;
            }
            // backtrack to the latest choice that can still be taken
            loop {
                if scratch.frames.len() == base {
                    break 'outer None;
                }
                match scratch.frames.pop() {
                    Some(Frame::Alt { pc: p, pos: q }) => {
                        pc = p;
                        pos = q;
                        break;
                    }
                    Some(Frame::Run { pc: p, low, cur }) => {
                        if let Some(q) = self.give_back(cx, p - 1, low, cur, scratch) {
                            if q > low {
                                scratch.frames.push(Frame::Run { pc: p, low, cur: q });
                            }
                            pc = p;
                            pos = q;
                            break;
                        }
                    }
                    None => break 'outer None,
                }
            }
        };
        scratch.frames.truncate(base);
        result
    }

    /// Where the run of instruction `pc` starting at `pos` ends. An unbounded run reuses the end
    /// it found from an earlier position inside the same run (retries at successive positions
    /// would otherwise rescan it each time).
    #[inline]
    fn run_end(
        &self,
        cx: &Ctx<'_>,
        pc: u32,
        class: u32,
        max: u32,
        pos: usize,
        scratch: &mut Scratch,
    ) -> usize {
        let class = &self.classes[class as usize];
        if max == u32::MAX {
            let (from, to) = scratch.runs[pc as usize];
            if from <= pos && pos <= to {
                return to;
            }
        }
        let limit = if max == u32::MAX {
            cx.end
        } else {
            cx.end.min(pos.saturating_add(max as usize))
        };
        let mut k = pos;
        while k < limit && class.contains(cx.units[k]) {
            k += 1;
        }
        scratch.steps += (k - pos) as u64;
        if max == u32::MAX {
            scratch.runs[pc as usize] = (pos, k);
        }
        k
    }

    /// The next position, below `cur` and not below `low`, that the run of instruction `pc` gives
    /// back to: `cur - 1`, or, when the instruction after the run requires a class, the last
    /// position whose unit is in it (the others fail there at once). Stretches found free of
    /// that class are remembered, so retries over the same run skip them.
    #[inline]
    fn give_back(
        &self,
        cx: &Ctx<'_>,
        pc: u32,
        low: usize,
        cur: usize,
        scratch: &mut Scratch,
    ) -> Option<usize> {
        let Inst::Run { next, .. } = self.insts[pc as usize] else {
            return (cur > low).then(|| cur - 1);
        };
        if next == NO_CLASS {
            return (cur > low).then(|| cur - 1);
        }
        let need = &self.classes[next as usize];
        let (fa, fb) = scratch.free[pc as usize];
        let mut hi = cur;
        let mut found = None;
        while hi > low {
            if fa < hi && hi <= fb {
                hi = fa.max(low);
                continue;
            }
            let q = hi - 1;
            scratch.steps += 1;
            if need.contains(cx.units[q]) {
                found = Some(q);
                break;
            }
            hi = q;
        }
        // [a, cur) holds no unit of the class: keep it, joined to the stretch known before
        let a = found.map_or(low, |q| q + 1);
        if a < cur {
            scratch.free[pc as usize] = if a <= fb && fa <= cur && fa <= fb {
                (a.min(fa), cur.max(fb))
            } else {
                (a, cur)
            };
        }
        found
    }

    /// libstdc++'s `regex_search` over `units[from..end]` (positions relative to nothing: the
    /// whole slice is indexed, `end` bounds the span): the first start position, in order,
    /// where a match is accepted, and that match's end.
    pub(super) fn search(
        &self,
        units: &[u32],
        from: usize,
        end: usize,
        how: How,
        scratch: &mut Scratch,
    ) -> Option<(usize, usize)> {
        let How {
            not_null,
            continuous,
            prev_avail,
        } = how;
        let cx = Ctx {
            units,
            end,
            not_null,
        };
        for start in from..=end {
            if let Some(first) = &self.start {
                let starts = start < end && units.get(start).is_some_and(|&u| first.contains(u));
                if !starts {
                    if continuous {
                        return None;
                    }
                    continue;
                }
            }
            if let Some(e) = self.run(&cx, 0, start, prev_avail || start > from, scratch) {
                return Some((start, e));
            }
            if continuous {
                return None;
            }
        }
        None
    }

    /// libstdc++'s `regex_iterator` over the span `units[start..end]`, as llama.cpp's
    /// `unicode_regex_split_stl` walks it: appends the lengths of the unmatched stretches and of
    /// every match (empty ones too, as llama.cpp does), covering the span.
    pub(super) fn split_span(
        &self,
        units: &[u32],
        start: usize,
        end: usize,
        out: &mut Vec<usize>,
        scratch: &mut Scratch,
    ) {
        scratch.reset(self.insts.len());
        let mut done = start;
        // the iterator's own match_prev_avail, set once it has stepped past a match
        let mut prev_avail = false;
        let mut m = self.search(units, start, end, How::FIRST, scratch);
        while let Some((ms, me)) = m {
            if ms > done {
                out.push(ms - done);
            }
            out.push(me - ms);
            done = me;
            let mut from = me;
            if ms == me {
                if me == end {
                    break;
                }
                // an empty match: first a non-empty one right there, else move on one unit
                if let Some(found) = self.search(
                    units,
                    me,
                    end,
                    How {
                        not_null: true,
                        continuous: true,
                        prev_avail,
                    },
                    scratch,
                ) {
                    m = Some(found);
                    continue;
                }
                from = me + 1;
            }
            prev_avail = true;
            m = self.search(units, from, end, How::NEXT, scratch);
        }
        if done < end {
            out.push(end - done);
        }
    }
}

/// Scratch space of the searches, reused across calls: the backtracking stack, and per
/// instruction what is known of the current span (where a run from some position ends; a
/// stretch free of the class a run's successor needs).
#[derive(Default)]
pub(super) struct Scratch {
    frames: Vec<Frame>,
    runs: Vec<(usize, usize)>,
    free: Vec<(usize, usize)>,
    /// Instructions executed and units scanned: the engine's work, which tests bound.
    pub(super) steps: u64,
}

impl Scratch {
    /// Forgets what was known of the previous span.
    fn reset(&mut self, insts: usize) {
        self.frames.clear();
        self.runs.clear();
        self.runs.resize(insts, (usize::MAX, 0));
        self.free.clear();
        self.free.resize(insts, (usize::MAX, 0));
    }
}
