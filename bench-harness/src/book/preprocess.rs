//! The mdBook preprocessor protocol: `mdbook-filterlab supports RENDERER` answers by its exit
//! status; otherwise mdBook writes `[context, book]` as JSON to stdin and reads the book back
//! from stdout. The book is walked as JSON (every object with `content` and `sub_items` is a
//! chapter), so nothing here depends on one mdBook version's types.

use super::{expand, Sources};
use crate::stages::course::model::CourseDoc;
use anyhow::{bail, Context, Result};
use serde_json::Value;
use std::path::PathBuf;

/// Where the course record and the CLI are, from the book's root and its `[preprocessor.filterlab]`
/// table (`course`, `cli`: paths relative to the root).
struct Config {
    course: PathBuf,
    cli: PathBuf,
}

fn config(ctx: &Value) -> Config {
    let root = PathBuf::from(ctx["root"].as_str().unwrap_or("."));
    let table = &ctx["config"]["preprocessor"]["filterlab"];
    let path = |key: &str, default: &str| root.join(table[key].as_str().unwrap_or(default));
    Config {
        course: path("course", "../reports/course/course.json"),
        cli: std::env::var_os("FILTERLAB_CLI")
            .map_or_else(|| path("cli", "../target/release/filterlab"), PathBuf::from),
    }
}

/// What a pass does to one chapter: from its name and content, the new content or the errors.
type Pass<'a> = dyn FnMut(&str, &str) -> Result<String, Vec<String>> + 'a;

/// Applies `f` to every chapter's content.
fn walk(items: &mut Value, f: &mut Pass<'_>, errors: &mut Vec<String>) {
    let Some(items) = items.as_array_mut() else {
        return;
    };
    for item in items {
        let Some(ch) = item.get_mut("Chapter") else {
            continue;
        };
        let name = ch["source_path"]
            .as_str()
            .or(ch["name"].as_str())
            .unwrap_or("?")
            .to_string();
        if let Some(text) = ch["content"].as_str() {
            match f(&name, text) {
                Ok(t) => ch["content"] = Value::String(t),
                Err(es) => errors.extend(es.into_iter().map(|e| format!("{name}: {e}"))),
            }
        }
        walk(&mut ch["sub_items"], f, errors);
    }
}

/// The book's list of chapters (`items` since mdBook 0.5, `sections` before).
fn items(book: &mut Value) -> &mut Value {
    let key = if book.get("items").is_some() {
        "items"
    } else {
        "sections"
    };
    &mut book[key]
}

/// Reads `[context, book]` from `input`, fills in every chapter, returns the book.
///
/// # Errors
/// Input that is not mdBook's, a course record that cannot be read, a CLI that is not built,
/// or any directive that cannot be filled (all of them listed).
pub fn run(input: &str) -> Result<String> {
    let (ctx, mut book): (Value, Value) =
        serde_json::from_str(input).context("mdBook's [context, book] JSON")?;
    let cfg = config(&ctx);
    let text = std::fs::read_to_string(&cfg.course)
        .with_context(|| format!("reading {}", cfg.course.display()))?;
    let course: CourseDoc =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", cfg.course.display()))?;
    if !cfg.cli.is_file() {
        bail!(
            "the exercises need the filterlab CLI at {} (cargo build --release -p filterlab-cli, \
             or set FILTERLAB_CLI)",
            cfg.cli.display()
        );
    }
    let src = Sources {
        course: &course,
        cli: Some(&cfg.cli),
    };
    let mut errors = Vec::new();
    walk(
        items(&mut book),
        &mut |_, text| expand(text, &src).map(|e| e.text),
        &mut errors,
    );
    if !errors.is_empty() {
        bail!("the book's directives:\n  {}", errors.join("\n  "));
    }
    Ok(serde_json::to_string(&book)?)
}

/// The renderers the book's directives suit: HTML (and anything reading Markdown).
#[must_use]
pub fn supports(renderer: &str) -> bool {
    matches!(renderer, "html" | "markdown")
}

/// The characters of the TeX source that Markdown would read as markup, as HTML entities.
const MARKUP: [(char, &str); 6] = [
    ('*', "&#42;"),
    ('_', "&#95;"),
    ('\\', "&#92;"),
    ('[', "&#91;"),
    (']', "&#93;"),
    ('`', "&#96;"),
];

/// Protects the TeX source that KaTeX keeps in each formula's MathML
/// (`<annotation encoding="application/x-tex">`) from Markdown, which would otherwise read
/// `k^*, ... p^*` as emphasis and break the formula's HTML. Runs after KaTeX.
#[must_use]
pub fn protect_annotations(text: &str) -> String {
    const OPEN: &str = "<annotation encoding=\"application/x-tex\">";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        let start = i + OPEN.len();
        let end = rest[start..]
            .find("</annotation>")
            .map_or(rest.len(), |e| start + e);
        out.push_str(&rest[..start]);
        for c in rest[start..end].chars() {
            match MARKUP.iter().find(|(m, _)| *m == c) {
                Some((_, entity)) => out.push_str(entity),
                None => out.push(c),
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The second pass (`mdbook-filterlab escape`, after KaTeX): [`protect_annotations`] on every
/// chapter.
///
/// # Errors
/// Input that is not mdBook's.
pub fn run_escape(input: &str) -> Result<String> {
    let (_ctx, mut book): (Value, Value) =
        serde_json::from_str(input).context("mdBook's [context, book] JSON")?;
    let mut errors = Vec::new();
    walk(
        items(&mut book),
        &mut |_, text| Ok(protect_annotations(text)),
        &mut errors,
    );
    Ok(serde_json::to_string(&book)?)
}
