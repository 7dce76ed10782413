//! Nothing outside the registry (`crates/filterlab/src/any/`) enumerates the variants: no
//! `enum Variant`, no `[Variant; N]`, no enum, match or list that names three or more variants.
//! The scan covers `crates/`, `fuzz/fuzz_targets/` and `bench-harness/` (which takes its
//! variants and their realised parameters from the registry), with no exception.

use filterlab::Variant;
use std::path::{Path, PathBuf};

/// A variant's Rust identifier, as `Variant` spells it (`Cuckoo`; a name with a hyphen such as
/// `item-window` has the identifier `ItemWindow`).
fn ident(v: Variant) -> String {
    format!("{v:?}")
}

/// The variant a line names as an item (an enum member, a match arm, a pattern), if any:
/// `Classic,`, `Classic(x) =>`, `Variant::Classic =>`, `Kind::Classic => ...`.
fn item_named(line: &str, idents: &[String]) -> Option<usize> {
    let t = line.trim_start();
    let t = t.rsplit_once("::").map_or(t, |(path, rest)| {
        if path
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            rest
        } else {
            t
        }
    });
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    let (word, rest) = t.split_at(end);
    let rest = rest.trim();
    let is_item = rest.is_empty()
        || rest == ","
        || rest.starts_with('(')
        || rest.starts_with('{')
        || rest.starts_with("=>");
    let i = idents.iter().position(|id| id == word)?;
    is_item.then_some(i)
}

/// Where `text` enumerates variants: (line number, why).
fn enumerations(text: &str) -> Vec<(usize, String)> {
    let idents: Vec<String> = Variant::ALL.iter().map(|&v| ident(v)).collect();
    let quoted: Vec<String> = Variant::ALL.iter().map(|v| format!("\"{v}\"")).collect();
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.contains("enum Variant") || line.contains("[Variant;") {
            found.push((i + 1, line.trim().to_string()));
        }
        let names = quoted.iter().filter(|q| line.contains(q.as_str())).count();
        if names >= 3 {
            found.push((i + 1, format!("a list of names: {}", line.trim())));
        }
        // Three or more variants named as items within a dozen lines: an enum or a match.
        let window = &lines[i..(i + 12).min(lines.len())];
        let mut named: Vec<usize> = window
            .iter()
            .filter_map(|l| item_named(l, &idents))
            .collect();
        named.sort_unstable();
        named.dedup();
        if item_named(line, &idents).is_some() && named.len() >= 3 {
            found.push((i + 1, format!("{} variants named from here", named.len())));
            i += window.len();
            continue;
        }
        i += 1;
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target") {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_variant_enumeration_outside_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let registry = root.join("crates/filterlab/src/any");
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    rust_files(&root.join("fuzz/fuzz_targets"), &mut files);
    rust_files(&root.join("bench-harness"), &mut files);
    assert!(
        files.len() > 50,
        "the scan found only {} files",
        files.len()
    );
    let this = Path::new(file!()).file_name().unwrap();
    let mut offences = Vec::new();
    for f in files {
        if f.starts_with(&registry) || f.file_name() == Some(this) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (line, why) in enumerations(&text) {
            offences.push(format!("{}:{line}: {why}", f.display()));
        }
    }
    assert!(
        offences.is_empty(),
        "variants enumerated outside filterlab::any:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_scan_finds_each_kind_of_enumeration() {
    let old_enum = "pub enum Kind {\n    Classic,\n    Counting,\n    Scalable,\n}\n";
    assert_eq!(enumerations(old_enum).len(), 1, "an enum");
    let old_match = "match v {\n    Kind::Classic => a(),\n    Kind::Cuckoo(f) => b(f),\n    \
                     // a comment\n    Kind::Blocked { .. } => c(),\n}\n";
    assert_eq!(enumerations(old_match).len(), 1, "a match");
    let list = "for v in [\"classic\", \"counting\", \"cuckoo\"] {}\n";
    assert_eq!(enumerations(list).len(), 1, "a list of names");
    assert_eq!(enumerations("pub enum Variant { A }").len(), 1);
    assert_eq!(enumerations("const ALL: [Variant; 5] = x;").len(), 1);
    // Uses of the registry, and one or two variants named, are not enumerations.
    let fine = "for &v in Variant::ALL {}\nif v == Variant::Cuckoo {}\nmatch p {\n    \
                Positions::Bits { .. } => 1,\n    Positions::Lanes { .. } => 2,\n    \
                Detail::Classic { m, k } => 3,\n    Detail::Counting { .. } => 4,\n}\n\
                // Classic,\n// Counting,\n// Scalable,\n";
    assert_eq!(enumerations(fine), Vec::new());
}
