//! The harness's import graph, read from its sources: no import cycle, and no import that points
//! back up the pipeline `dataset -> measure -> record -> filters -> plan -> stages -> judge ->
//! render -> check -> pipeline` (a module may import only modules of its own layer or below;
//! a stage may not import another stage). The charts crate (bench-harness/charts) is checked for
//! cycles between its modules. The CLI crate (crates/filterlab-cli) is held to the same two rules
//! over its own layers ([`CLI_LAYERS`]).
//!
//! `record` sits below the stages in the import order although the data reaches it after them:
//! it is the results model the stages fill. Test code (files named `tests.rs` and everything
//! after a `#[cfg(test)]` line) is left out: fixtures may import from anywhere.
//!
//! Also: no source file over 600 lines and no function over 80, in the whole workspace (the
//! harness, its charts and peers crates, the library's crates and the fuzz targets: sources,
//! examples, benches and tests).
//!
//! Print the graph: `cargo test -p bench-harness --test layout -- --nocapture print_graph`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The harness's top-level modules, lowest first. A module may import its own layer or below.
const LAYERS: &[&str] = &[
    "dataset", "measure", "record", "filters", "plan", "stages", "judge", "render", "book",
    "check", "pipeline",
];

/// The CLI's modules, lowest first: helpers, then what a command needs, the parsed arguments,
/// the commands' work, the rendering of their results, and the dispatch (`commands`).
const CLI_LAYERS: &[&str] = &[
    "units",
    "signals",
    "parse",
    "output",
    "window",
    "recommend",
    "file",
    "foreign",
    "gate",
    "args",
    "keys",
    "build",
    "parquet",
    "convert",
    "explain",
    "render",
    "commands",
];

/// Module path -> the modules it imports (resolved to the longest known module path).
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Reads every `.rs` file under `src` as (module path, text).
fn read_tree(src: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable source folder") {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).expect("under src");
                let text = std::fs::read_to_string(&path).expect("a readable file");
                out.push((module_of(rel), text));
            }
        }
    }
    out.sort();
    out
}

/// `stages/threads/mod.rs` -> `stages::threads`; `lib.rs`, `main.rs` and the other binaries
/// (`bin/*.rs`, crates of their own over the library) -> `` (the root).
fn module_of(rel: &Path) -> String {
    if rel.starts_with("bin") {
        return String::new();
    }
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The production part of a file: no comments, nothing after `#[cfg(test)]`.
fn production(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // `mod tests;` (a file of its own, left out) or an inline `mod tests {` that ends the file.
            match lines.next().map(str::trim) {
                Some(next) if next.starts_with("mod ") && next.ends_with(';') => continue,
                Some(next) if next.starts_with("mod ") || next.starts_with("pub(crate) mod ") => {
                    break
                }
                _ => continue,
            }
        }
        let code = t.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Every path a file names through `crate::` or `super::`, as absolute module paths
/// (`use crate::{a, b::{c, d}}` gives `a`, `b::c`, `b::d`).
fn paths(module: &str, text: &str) -> Vec<Vec<String>> {
    let code = production(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let boundary = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        let base: Option<(Vec<String>, usize)> = if !boundary {
            None
        } else if rest.starts_with(b"crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with(b"super::") {
            let mut here: Vec<String> = split(module);
            // In `a/b.rs` and in `a/b/mod.rs` (module a::b), `super` is `a`.
            let mut len = 0;
            while bytes[i + len..].starts_with(b"super::") {
                here.pop();
                len += "super::".len();
            }
            Some((here, len))
        } else {
            None
        };
        match base {
            Some((prefix, len)) => {
                let (found, used) = expand(&code[i + len..], prefix);
                out.extend(found);
                i += len + used.max(1);
            }
            None => i += 1,
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn split(module: &str) -> Vec<String> {
    module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads `a::b::{c, d::e}` at the start of `s` under `prefix`; returns the paths and the bytes used.
fn expand(s: &str, prefix: Vec<String>) -> (Vec<Vec<String>>, usize) {
    let b = s.as_bytes();
    let mut path = prefix;
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        if i > start {
            path.push(s[start..i].to_string());
        }
        let group = if i == start { "{" } else { "::{" };
        if s[i..].starts_with(group) {
            i += group.len();
            let mut found = Vec::new();
            loop {
                while i < b.len() && (b[i] == b' ' || b[i] == b'\n' || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    return (found, i + 1);
                }
                let (inner, used) = expand(&s[i..], path.clone());
                found.extend(inner);
                i += used;
                // skip `as x` and anything up to the next separator at this depth
                while i < b.len() && b[i] != b',' && b[i] != b'}' {
                    i += 1;
                }
            }
        } else if s[i..].starts_with("::") && i > start {
            i += 2;
        } else {
            return (vec![path], i);
        }
    }
}

/// The import graph of the sources `files` (module path, text); test modules left out.
fn graph(files: &[(String, String)]) -> Graph {
    let modules: BTreeSet<&str> = files.iter().map(|(m, _)| m.as_str()).collect();
    let mut g = Graph::new();
    for (module, text) in files {
        if module == "tests" || module.ends_with("::tests") {
            continue;
        }
        let deps = g.entry(module.clone()).or_default();
        for p in paths(module, text) {
            let target = (0..=p.len())
                .rev()
                .map(|k| p[..k].join("::"))
                .find(|m| modules.contains(m.as_str()))
                .unwrap_or_default();
            if target != *module && !target.is_empty() {
                deps.insert(target);
            }
        }
    }
    g
}

/// What a module counts as: its top-level module, or `stages::<stage>` inside the stages.
fn unit(module: &str) -> String {
    let p = split(module);
    match p.as_slice() {
        [first, second, ..] if first == "stages" => format!("{first}::{second}"),
        [first, ..] => first.clone(),
        [] => String::new(),
    }
}

/// The graph between units (top-level modules, and each stage), without the crate root.
fn units(g: &Graph) -> Graph {
    let mut out = Graph::new();
    for (from, deps) in g {
        let u = unit(from);
        if u.is_empty() {
            continue;
        }
        let entry = out.entry(u.clone()).or_default();
        for d in deps.iter().map(|d| unit(d)) {
            if d != u && !d.is_empty() {
                entry.insert(d);
            }
        }
    }
    out
}

/// Every cycle of `g`, each as the list of its modules (one per strongly connected component).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    // Kosaraju: a component with more than one node, or a self-loop, is a cycle.
    fn visit(g: &Graph, n: &str, seen: &mut BTreeSet<String>, order: &mut Vec<String>) {
        if !seen.insert(n.to_string()) {
            return;
        }
        for d in g.get(n).into_iter().flatten() {
            visit(g, d, seen, order);
        }
        order.push(n.to_string());
    }
    let nodes: BTreeSet<&String> = g.keys().chain(g.values().flatten()).collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for n in &nodes {
        visit(g, n, &mut seen, &mut order);
    }
    let mut rev = Graph::new();
    for (a, ds) in g {
        for d in ds {
            rev.entry(d.clone()).or_default().insert(a.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for n in order.iter().rev() {
        if assigned.contains(n) {
            continue;
        }
        let mut comp = Vec::new();
        visit(&rev, n, &mut assigned, &mut comp);
        comp.sort();
        if comp.len() > 1 || g.get(n).is_some_and(|d| d.contains(n)) {
            out.push(comp);
        }
    }
    out
}

/// Every import of `g` (between units) that points up the layers, or from one stage to another,
/// and every top-level module missing from `layers`.
fn back_imports(g: &Graph, layers: &[&str]) -> Vec<String> {
    let rank = |u: &str| layers.iter().position(|l| *l == split(u)[0]);
    let mut out = Vec::new();
    for (from, deps) in g {
        let Some(rf) = rank(from) else {
            out.push(format!("{from} is in no layer"));
            continue;
        };
        for to in deps {
            match rank(to) {
                None => out.push(format!("{to} is in no layer")),
                Some(rt) if rt > rf => out.push(format!("{from} -> {to} (up the pipeline)")),
                Some(_) if from.contains("::") && to.contains("::") => {
                    out.push(format!("{from} -> {to} (one stage importing another)"));
                }
                Some(_) => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn dir(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn print_graph() {
    let g = units(&graph(&read_tree(&dir("src"))));
    for (from, deps) in &g {
        println!(
            "{from} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(
        g.contains_key("dataset"),
        "the graph read no dataset module"
    );
}

fn fixture(files: &[(&str, &str)]) -> Graph {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(m, t)| ((*m).to_string(), (*t).to_string()))
        .collect();
    units(&graph(&files))
}

#[test]
fn parser_reads_groups_super_and_skips_comments_and_tests() {
    let g = graph(&[
        ("a".into(), "use crate::{b, c::{d, e as f}};\n".into()),
        ("b".into(), "// use crate::a;\n/// [`crate::a`]\nfn x() {}\n".into()),
        ("c".into(), String::new()),
        ("c::d".into(), "use super::e::X;\n".into()),
        (
            "c::e".into(),
            "#[cfg(test)]\nmod tests;\nuse crate::c;\n#[cfg(test)]\nmod tests {\n use crate::a;\n}\n".into(),
        ),
    ]);
    let names = |m: &str| g[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(names("a"), ["b", "c::d", "c::e"]);
    assert!(names("b").is_empty());
    assert_eq!(names("c::d"), ["c::e"]);
    assert_eq!(names("c::e"), ["c"]);
}

#[test]
fn a_cycle_and_a_back_import_are_found() {
    let g = fixture(&[
        ("judge", "use crate::render::Table;\n"),
        ("render", "use crate::judge::Verdict;\n"),
        ("stages", ""),
        ("stages::threads", "use crate::stages::matrix::Ctx;\n"),
        ("stages::matrix", "use crate::dataset::KeySet;\n"),
        ("dataset", "use crate::measure::Spread;\n"),
        ("measure", ""),
    ]);
    assert_eq!(
        cycles(&g),
        [vec!["judge".to_string(), "render".to_string()]]
    );
    assert_eq!(
        back_imports(&g, LAYERS),
        [
            "dataset -> measure (up the pipeline)",
            "judge -> render (up the pipeline)",
            "stages::threads -> stages::matrix (one stage importing another)",
        ]
    );
    let unknown = fixture(&[("extra", "use crate::dataset::KeySet;\n"), ("dataset", "")]);
    assert_eq!(back_imports(&unknown, LAYERS), ["extra is in no layer"]);
}

#[test]
fn the_harness_has_no_cycle_and_no_back_import() {
    let g = units(&graph(&read_tree(&dir("src"))));
    assert_eq!(cycles(&g), Vec::<Vec<String>>::new(), "import cycles");
    assert_eq!(back_imports(&g, LAYERS), Vec::<String>::new());
}

#[test]
fn the_charts_crate_has_no_cycle() {
    let g = units(&graph(&read_tree(&dir("charts/src"))));
    assert!(g.len() > 3, "the graph read too few chart modules: {g:?}");
    assert_eq!(cycles(&g), Vec::<Vec<String>>::new(), "import cycles");
}

#[test]
fn the_cli_has_no_cycle_and_no_back_import() {
    let g = units(&graph(&read_tree(&dir("../crates/filterlab-cli/src"))));
    assert!(
        g.contains_key("commands") && g.len() > 8,
        "the graph read too few CLI modules: {g:?}"
    );
    assert_eq!(cycles(&g), Vec::<Vec<String>>::new(), "import cycles");
    assert_eq!(back_imports(&g, CLI_LAYERS), Vec::<String>::new());
}

#[test]
fn a_cli_cycle_and_a_back_import_are_found() {
    // The cycle the issue found: the commands and the rendering importing each other.
    let g = fixture(&[
        ("commands", "use crate::render;\n"),
        (
            "render",
            "use crate::commands::Outcome;\nuse crate::units::pct;\n",
        ),
        ("units", "use crate::args::Size;\n"),
        ("args", ""),
    ]);
    assert_eq!(
        cycles(&g),
        [vec!["commands".to_string(), "render".to_string()]]
    );
    assert_eq!(
        back_imports(&g, CLI_LAYERS),
        [
            "render -> commands (up the pipeline)",
            "units -> args (up the pipeline)",
        ]
    );
}

/// Longest file, in lines.
const MAX_FILE_LINES: usize = 600;
/// Longest function, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 80;

/// Every file over [`MAX_FILE_LINES`] and every function over [`MAX_FN_LINES`] of `text`
/// (named `name`). A function ends at the first line that is its indentation and `}`, as
/// rustfmt writes it; a one-line function or a declaration without a body is one line.
fn too_long(name: &str, text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    if lines.len() > MAX_FILE_LINES {
        out.push(format!("{name}: {} lines", lines.len()));
    }
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let rest = [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
        ]
        .iter()
        .fold(code, |c, p| c.strip_prefix(p).unwrap_or(c));
        let Some(signature) = rest.strip_prefix("fn ") else {
            continue;
        };
        let fn_name: String = signature
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if code.ends_with('}') || code.ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        let end = lines[i..].iter().position(|l| *l == close);
        let len = end.map_or(lines.len() - i, |e| e + 1);
        if len > MAX_FN_LINES {
            out.push(format!("{name}:{} fn {fn_name}: {len} lines", i + 1));
        }
    }
    out
}

/// Every `.rs` file below `dir`, build outputs (`target`) and hidden folders (a virtual
/// environment) aside: a build script's generated sources are not ours.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a readable entry").path();
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        if path.is_dir() && (name == "target" || name.starts_with('.')) {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn a_long_function_and_a_long_file_are_found() {
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES);
    let long_fn =
        format!("pub fn long() {{\n{body}}}\n\nfn short() {{\n    1\n}}\nfn one() {{}}\n");
    assert_eq!(too_long("f.rs", &long_fn), ["f.rs:1 fn long: 82 lines"]);
    let fine = format!("fn fine() {{\n{}}}\n", "    x;\n".repeat(MAX_FN_LINES - 2));
    assert_eq!(too_long("g.rs", &fine), Vec::<String>::new());
    let long_file = "// a line\n".repeat(MAX_FILE_LINES + 1);
    assert_eq!(too_long("h.rs", &long_file), ["h.rs: 601 lines"]);
}

#[test]
fn no_file_over_600_lines_and_no_function_over_80() {
    let mut files = Vec::new();
    for d in [
        "src",
        "charts/src",
        "peers/src",
        "peers/tests",
        "examples",
        "benches",
        "tests",
        "../crates",
        "../fuzz",
    ] {
        rust_files(&dir(d), &mut files);
    }
    assert!(files.len() > 300, "too few files read: {}", files.len());
    let long: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).expect("a readable file");
            let name = f.strip_prefix(dir("")).unwrap_or(f).display().to_string();
            too_long(&name, &text)
        })
        .collect();
    assert_eq!(long, Vec::<String>::new());
}
