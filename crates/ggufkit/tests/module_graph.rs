//! The library's modules import each other without a loop: a module low in the stack (the wire
//! format, the rules, the parser) never reaches up into one built on it (the verdicts, the
//! summary, the audit). This test reads every source file under `src/`, collects the `crate::`
//! paths it names (in `use` lines and inline, outside comments and string literals), resolves the
//! names `lib.rs` re-exports to the module that defines them, and builds the graph of the crate's
//! top-level modules. Any cycle fails the test, named module by module with a file that makes
//! each edge. New modules need no registration: they join the graph as they are found.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a Rust file with comments and the contents of string and char literals blanked,
/// so that a `crate::` in a doc comment or a message is not taken for an import.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // block comments nest in Rust
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // a raw string: r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&b'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' && (b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'')) {
            // a char literal ('x', '\n', '\u{..}'); a lifetime ('a) has no closing quote there
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let n = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&src[i..i + n]);
            i += n;
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segment of every path that starts at the crate root: `crate::a::b` gives `a`,
/// `crate::{a::b, c}` gives `a` and `c`.
fn crate_roots(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue; // `mycrate::`, `$crate::`
        }
        let rest_trim = rest.trim_start();
        if let Some(group) = rest_trim.strip_prefix('{') {
            // the top-level items of the group: split at commas outside nested braces
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(ident_at(item.trim()).to_string());
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 {
                    item.push(c);
                }
            }
            found.push(ident_at(item.trim()).to_string());
        } else {
            found.push(ident_at(rest_trim).to_string());
        }
    }
    found.retain(|s| !s.is_empty() && s != "self");
    found
}

/// The top-level module a source file belongs to (`read/parser/values.rs` is in `read`), or
/// `None` for `lib.rs`.
fn module_of(src_dir: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src_dir).expect("a file under src/");
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

/// The names `lib.rs` re-exports (`pub use read::{Gguf, Kv}`), each with the module it comes from.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let code = code_only(lib);
    for stmt in code.split(';') {
        let s = stmt.trim();
        let Some(path) = s
            .rsplit_once("pub use ")
            .map(|(_, p)| p.trim())
            .filter(|_| s.contains("pub use "))
        else {
            continue;
        };
        let module = ident_at(path.trim_start_matches("crate::")).to_string();
        let tail = &path[path.find("::").map_or(path.len(), |i| i + 2)..];
        let items: Vec<&str> = match tail.trim().strip_prefix('{') {
            Some(group) => group.trim_end_matches('}').split(',').collect(),
            None => vec![tail],
        };
        for item in items {
            // `a::B` re-exports `B`; `B as C` re-exports `C`
            let item = item.trim();
            let name = match item.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => item.rsplit("::").next().unwrap_or(item).trim(),
            };
            if !name.is_empty() {
                names.insert(name.to_string(), module.clone());
            }
        }
    }
    names
}

type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The module graph: module -> module it names -> the files that name it.
fn module_graph() -> Graph {
    let src_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src_dir, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(&src_dir, f))
        .collect();
    let lib = std::fs::read_to_string(src_dir.join("lib.rs")).expect("src/lib.rs");
    let reexports = root_reexports(&lib);
    let mut graph = Graph::new();
    for file in &files {
        let Some(from) = module_of(&src_dir, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let rel = file
            .strip_prefix(&src_dir)
            .expect("under src/")
            .display()
            .to_string();
        let entry = graph.entry(from.clone()).or_default();
        for root in crate_roots(&code_only(&text)) {
            let to = if modules.contains(&root) {
                root
            } else if let Some(m) = reexports.get(&root) {
                m.clone()
            } else {
                continue; // a macro or an item of lib.rs itself
            };
            if to != from {
                entry.entry(to).or_default().insert(rel.clone());
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm, iterative).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = graph.keys().collect();
    let id = |n: &str| nodes.iter().position(|m| *m == n);
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| graph[*n].keys().filter_map(|m| id(m)).collect())
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, Vec::new());
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    component.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    out.push(component);
                }
            }
        }
    }
    out
}

#[test]
fn no_cycle_between_top_level_modules() {
    let graph = module_graph();
    assert!(
        graph.contains_key("read") && graph.contains_key("wire"),
        "the graph holds the crate's modules: {:?}",
        graph.keys().collect::<Vec<_>>()
    );
    let mut report = String::new();
    for component in cycles(&graph) {
        report.push_str(&format!("cycle among {}:\n", component.join(", ")));
        for from in &component {
            for (to, files) in &graph[from] {
                if component.contains(to) {
                    let files: Vec<_> = files.iter().map(String::as_str).collect();
                    report.push_str(&format!("  {from} -> {to}  ({})\n", files.join(", ")));
                }
            }
        }
    }
    assert!(
        report.is_empty(),
        "the library's modules import in a loop:\n{report}"
    );
}

#[test]
fn the_reader_sees_imports_and_not_comments() {
    let code = code_only(
        "use crate::{read::Gguf, wire::{Span, ValueWalk}, Error};\n\
         // crate::audit in a comment\n\
         /* crate::scan /* nested */ still a comment */\n\
         let s = \"crate::summary\"; let r = r#\"crate::diff\"#; let c = '\"';\n\
         fn f<'a>(x: &'a u8) { crate::quant::f(); }\n",
    );
    assert_eq!(crate_roots(&code), ["read", "wire", "Error", "quant"]);
    let lib = "pub use error::{Diagnostic, Error};\npub use read::outline;\n";
    let names = root_reexports(lib);
    assert_eq!(names.get("Error").map(String::as_str), Some("error"));
    assert_eq!(names.get("outline").map(String::as_str), Some("read"));
}

#[test]
fn a_loop_is_found_and_named() {
    let mut g = Graph::new();
    let edge = |g: &mut Graph, a: &str, b: &str| {
        g.entry(a.into())
            .or_default()
            .entry(b.into())
            .or_default()
            .insert(format!("{a}.rs"));
        g.entry(b.into()).or_default();
    };
    edge(&mut g, "a", "b");
    edge(&mut g, "b", "c");
    edge(&mut g, "c", "a");
    edge(&mut g, "c", "d");
    assert_eq!(cycles(&g), [vec!["a", "b", "c"]]);
    let mut acyclic = Graph::new();
    edge(&mut acyclic, "a", "b");
    edge(&mut acyclic, "b", "c");
    edge(&mut acyclic, "a", "c");
    assert!(cycles(&acyclic).is_empty());
}
