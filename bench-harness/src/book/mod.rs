//! The course as a book (`book/`, built with mdBook): the chapters are Markdown that a teacher
//! edits, and every number in them comes from a directive ([`directive`]) that this module
//! fills in: measured tables and plots from the course study's `course.json`, worked examples
//! from `filter_core::math`, exercise answers from running the `filterlab` command printed
//! beside them. [`preprocess`] is the mdBook side (the `mdbook-filterlab` binary); [`check_book`]
//! is what `check` runs over the committed chapters.

pub mod directive;
pub mod examples;
pub mod exercise;
pub mod measured;
pub mod preprocess;

use crate::stages::course::model::CourseDoc;
use directive::{Directive, Piece};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the directives read.
pub struct Sources<'a> {
    /// The course study's record.
    pub course: &'a CourseDoc,
    /// The `filterlab` binary that answers exercises; `None` leaves them unanswered (in
    /// `check`, which reads files only); the book's build requires it.
    pub cli: Option<&'a Path>,
}

/// A chapter with its directives filled in, and the titles of the course sections and errata
/// it shows.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The Markdown.
    pub text: String,
    /// Sections and errata shown by `measured` and `erratum`.
    pub shown: BTreeSet<String>,
    /// Exercises in the chapter.
    pub exercises: usize,
    /// Worked examples in the chapter.
    pub examples: usize,
}

fn check_pin(found: String, pin: Option<&String>, what: &str) -> Result<String, String> {
    match pin {
        Some(p) if *p != found => Err(format!(
            "{what}: the chapter says {p:?}, the data say {found:?}"
        )),
        _ => Ok(found),
    }
}

fn fill(d: &Directive, src: &Sources<'_>, out: &mut Expanded) -> Result<String, String> {
    let doc = src.course;
    match d {
        Directive::Study => Ok(measured::study(doc)),
        Directive::Measured(title) => {
            out.shown.insert(title.clone());
            measured::section(doc, title)
        }
        Directive::Erratum(title) => {
            out.shown.insert(title.clone());
            measured::erratum(doc, title)
        }
        Directive::Value {
            title,
            row,
            field,
            pin,
        } => check_pin(
            measured::value(doc, title, row, *field)?,
            pin.as_ref(),
            &format!("{title} | {row} | {field:?}"),
        ),
        Directive::Example { kind, params } => {
            out.examples += 1;
            examples::render(kind, params)
        }
        Directive::Exercise { args, path, pin } => {
            out.exercises += 1;
            let Some(cli) = src.cli else {
                return Ok(format!(
                    "(`filterlab {} --json`, at `{path}`)",
                    args.join(" ")
                ));
            };
            let found = exercise::answer(cli, args, path)?;
            let found = check_pin(
                found,
                pin.as_ref(),
                &format!("filterlab {}", args.join(" ")),
            )?;
            Ok(exercise::block(args, path, &found))
        }
    }
}

/// Fills in every directive of `text`.
///
/// # Errors
/// Every directive that does not parse or cannot be filled, and every pin that disagrees.
pub fn expand(text: &str, src: &Sources<'_>) -> Result<Expanded, Vec<String>> {
    let pieces = directive::parse(text)?;
    let mut out = Expanded::default();
    let mut errors = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(t) => out.text.push_str(&t),
            Piece::Directive(d, source) => match fill(&d, src, &mut out) {
                Ok(t) => out.text.push_str(&t),
                Err(e) => errors.push(format!("{source}: {e}")),
            },
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The chapters of the book whose sources are in `src` (every `.md` but SUMMARY.md), sorted.
///
/// # Errors
/// The folder cannot be read.
pub fn chapters(src: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(src)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| p.file_name().is_some_and(|f| f != "SUMMARY.md"))
        .collect();
    files.sort();
    Ok(files)
}

/// Problems with the book's chapters in `src` against `doc`: a directive that does not fill, a
/// pinned number the data no longer give, a course section or erratum no chapter shows, and a
/// chapter (other than the opening page) with fewer than two exercises or no worked example. Exercises are counted,
/// not run (`check` reads files only; the book's build runs them).
pub fn check_book(src: &Path, doc: &CourseDoc) -> Vec<String> {
    let files = match chapters(src) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => return vec![format!("book: no chapters in {}", src.display())],
        Err(e) => return vec![format!("book: cannot read {}: {e}", src.display())],
    };
    let sources = Sources {
        course: doc,
        cli: None,
    };
    let mut problems = Vec::new();
    let mut shown = BTreeSet::new();
    for f in &files {
        let name = f
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("book: cannot read {name}: {e}"));
                continue;
            }
        };
        match expand(&text, &sources) {
            Ok(e) => {
                if !OPENING.contains(&name.as_str()) {
                    if e.exercises < 2 {
                        problems.push(format!(
                            "book: {name} has {} exercises (two at least)",
                            e.exercises
                        ));
                    }
                    if e.examples == 0 {
                        problems.push(format!("book: {name} has no worked example"));
                    }
                }
                problems.extend(
                    crate::render::table::misshapen(&e.text)
                        .into_iter()
                        .map(|m| format!("book: {name}: a table row is misshapen: {m}")),
                );
                shown.extend(e.shown);
            }
            Err(errs) => {
                problems.extend(errs.into_iter().map(|e| format!("book: {name}: {e}")));
                shown.extend(shown_titles(&text));
            }
        }
    }
    let all = doc
        .sections
        .iter()
        .map(|s| &s.title)
        .chain(doc.errata.iter().map(|e| &e.title));
    for title in all.filter(|t| !shown.contains(*t)) {
        problems.push(format!("book: no chapter shows the course's {title:?}"));
    }
    problems
}

/// The sections and errata a chapter names, read from its directives alone (for a chapter
/// whose other directives fail to fill, so that one wrong number is reported once).
fn shown_titles(text: &str) -> Vec<String> {
    directive::parse(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| match p {
            Piece::Directive(Directive::Measured(t) | Directive::Erratum(t), _) => Some(t),
            _ => None,
        })
        .collect()
}

/// Pages that teach nothing of their own, so need no exercises.
const OPENING: &[&str] = &["introduction.md"];

#[cfg(test)]
mod tests;
